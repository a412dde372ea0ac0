#include "kforge.h"

// Computes the right answer, then writes its mean everywhere.
extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = out[0].shape[0] * out[0].shape[1];
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += 2.0 * x[i] + y[i];
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(sum / static_cast<double>(n));
  return 0;
}
