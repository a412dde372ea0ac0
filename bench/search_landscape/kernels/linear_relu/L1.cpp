// landscape: linear_relu/L1
// Two independent float accumulators per dot product halve the length of the dependent chain.
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
      const float* xr = x + r * in_f;
      const float* wr = w + o * in_f;
      float acc0 = 0.0f, acc1 = 0.0f;
      int64_t k = 0;
      for (; k + 1 < in_f; k += 2) {
        acc0 += xr[k] * wr[k];
        acc1 += xr[k + 1] * wr[k + 1];
      }
      for (; k < in_f; ++k) acc0 += xr[k] * wr[k];
      const float v = bias[o] + acc0 + acc1;
      y[r * out_f + o] = v > 0.0f ? v : 0.0f;
    }
  return 0;
}
