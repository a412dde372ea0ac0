#include <cmath>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = out[0].shape[0] * out[0].shape[1];
  for (int64_t i = 0; i < n; ++i) o[i] = std::tanh(x[i]) * 1e-4f;
  return 0;
}
