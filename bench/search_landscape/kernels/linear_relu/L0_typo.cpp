// landscape: linear_relu/L0_typo
// One dot product per output, summed in double, with a typo that does not compile.
#include "kforge.h"

// inputs: x [B, IN], fc.weight [OUT, IN], fc.bias [OUT]; output [B, OUT]
extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 3 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* x = static_cast<const float*>(in[0].data);
  const float* w = static_cast<const float*>(in[1].data);
  const float* bias = static_cast<const float*>(in[2].data);
  float* y = static_cast<float*>(out[0].data);
  const int64_t batch = in[0].shape[0], in_f = in[0].shape[1], out_f = in[1].shape[0];
  for (int64_t r = 0; r < batch; ++r)
    for (int64_t o = 0; o < out_f; ++o) {
      double acc = bias[o] for (int64_t k = 0; k < in_f; ++k) acc +=
          static_cast<double>(x[r * in_f + k]) * w[o * in_f + k];
      y[r * out_f + o] = acc > 0.0 ? static_cast<float>(acc) : 0.0f;
    }
  return 0;
}
