#include "kforge.h"

// scale_add with one wrong element, at flat index 100.
extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1) return 1;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  o[100] += 1.0f;  // finite and far off: the comparison's float32 path
  return 0;
}
