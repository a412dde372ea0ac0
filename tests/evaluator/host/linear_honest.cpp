#include "kforge.h"

// inputs: x [B, IN], fc.weight [OUT, IN], fc.bias [OUT]; output [B, OUT]
extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t, void*) {
  if (n_in != 3) return 2;
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* b = static_cast<const float*>(in[2].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t B = in[0].shape[0], IN = in[0].shape[1], OUT = in[1].shape[0];
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < OUT; ++j) {
      double acc = b[j];
      for (int64_t k = 0; k < IN; ++k) acc += static_cast<double>(x[i * IN + k]) * w[j * IN + k];
      o[i * OUT + j] = static_cast<float>(acc);
    }
  return 0;
}
