// landscape: linear_relu/L2_bug
// Eight lanes of partial sums per dot product; bug: the ReLU is applied to each lane instead of the sum.
#include "kforge.h"

namespace {
constexpr int64_t kLanes = 8;
}

// inputs: x [B, IN], fc.weight [OUT, IN], fc.bias [OUT]; output [B, OUT]
extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 3 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* __restrict__ x = static_cast<const float*>(in[0].data);
  const float* __restrict__ w = static_cast<const float*>(in[1].data);
  const float* __restrict__ bias = static_cast<const float*>(in[2].data);
  float* __restrict__ y = static_cast<float*>(out[0].data);
  const int64_t batch = in[0].shape[0], in_f = in[0].shape[1], out_f = in[1].shape[0];
  const int64_t k_tiled = in_f - in_f % kLanes;
  for (int64_t r = 0; r < batch; ++r)
    for (int64_t o = 0; o < out_f; ++o) {
      const float* __restrict__ xr = x + r * in_f;
      const float* __restrict__ wr = w + o * in_f;
      float lanes[kLanes] = {};
      for (int64_t k = 0; k < k_tiled; k += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) lanes[l] += xr[k + l] * wr[k + l];
      float v = bias[o];
      for (int64_t l = 0; l < kLanes; ++l) v += lanes[l] > 0.0f ? lanes[l] : 0.0f;
      for (int64_t k = k_tiled; k < in_f; ++k) v += xr[k] * wr[k];
      y[r * out_f + o] = v > 0.0f ? v : 0.0f;
    }
  return 0;
}
