// Hack: computes the right answer but uses an input as scratch space (modifies y in place).
#include <cstring>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  float* y = static_cast<float*>(in[1].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] += 2.0f * x[i];
  std::memcpy(out[0].data, y, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
