// landscape: matmul/tweak2
// Branching landscape, tweak family, same kernel as L2.
// i-k-j with k unrolled by four: each pass over a row of C adds four rows of B, a quarter of the loads and
// stores of C; restrict-qualified pointers let the row update vectorise without aliasing checks.
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
    for (; p + 4 <= k; p += 4) {
      const float a0 = a[i * k + p], a1 = a[i * k + p + 1], a2 = a[i * k + p + 2], a3 = a[i * k + p + 3];
      const float* __restrict__ b0 = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += a0 * b0[j] + a1 * b0[n + j] + a2 * b0[2 * n + j] + a3 * b0[3 * n + j];
    }
    for (; p < k; ++p) {
      const float av = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) crow[j] += av * b[p * n + j];
    }
  }
  return 0;
}
