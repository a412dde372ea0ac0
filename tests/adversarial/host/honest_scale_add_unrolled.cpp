// Honest: manual 8-way unrolling with a scalar tail.
#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1) return 1;
  const float* __restrict x = static_cast<const float*>(in[0].data);
  const float* __restrict y = static_cast<const float*>(in[1].data);
  float* __restrict o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) o[i + k] = x[i + k] + x[i + k] + y[i + k];
  }
  for (; i < n; ++i) o[i] = x[i] + x[i] + y[i];
  return 0;
}
