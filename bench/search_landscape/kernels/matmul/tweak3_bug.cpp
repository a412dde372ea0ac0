// landscape: matmul/tweak3_bug
// Branching landscape, tweak family: i-k-j with k unrolled by eight. No faster than unrolling by four: the row
// update still loads and stores a row of C per pass and streams eight rows of B, so the tweaks end here. Bug:
// the eighth row of each group (ar[7]) is left out.
#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* __restrict__ a = static_cast<const float*>(in[0].data);
  const float* __restrict__ b = static_cast<const float*>(in[1].data);
  float* __restrict__ c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  for (int64_t i = 0; i < m; ++i) {
    float* __restrict__ crow = c + i * n;
    for (int64_t j = 0; j < n; ++j) crow[j] = 0.0f;
    int64_t p = 0;
    for (; p + 8 <= k; p += 8) {
      const float* __restrict__ ar = a + i * k + p;
      const float* __restrict__ b0 = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        crow[j] += ar[0] * b0[j] + ar[1] * b0[n + j] + ar[2] * b0[2 * n + j] + ar[3] * b0[3 * n + j] +
                   ar[4] * b0[4 * n + j] + ar[5] * b0[5 * n + j] + ar[6] * b0[6 * n + j];
    }
    for (; p < k; ++p) {
      const float av = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) crow[j] += av * b[p * n + j];
    }
  }
  return 0;
}
