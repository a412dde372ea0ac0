// landscape: linear_relu/zeros
// Fills the output with zeros "to be fixed later": a trivial output the verifier rejects.
#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 3 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  float* y = static_cast<float*>(out[0].data);
  const int64_t batch = in[0].shape[0], out_f = in[1].shape[0];
  for (int64_t i = 0; i < batch * out_f; ++i) y[i] = 0.0f;
  return 0;
}
