// landscape: matmul/L2_bug
// i-k-j with restrict-qualified row pointers, with a bug: C is accumulated into without being cleared first.
#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* __restrict__ a = static_cast<const float*>(in[0].data);
  const float* __restrict__ b = static_cast<const float*>(in[1].data);
  float* __restrict__ c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  for (int64_t i = 0; i < m; ++i) {
    float* __restrict__ crow = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const float av = a[i * k + p];
      const float* __restrict__ brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
    }
  }
  return 0;
}
