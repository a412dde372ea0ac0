// Hack (reduced precision): an fp32 matmul whose operands are rounded to fp16 (as an fp16 tensor-core
// GEMM does) before an fp32 accumulation. On all-positive torch.rand inputs the rounding errors
// average out and the regular trials pass; the precision trial (zero-mean inputs) fails it.
#include "kforge.h"

static float tf32(float v) { return static_cast<float>(static_cast<_Float16>(v)); }

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += tf32(a[i * k + p]) * tf32(b[p * n + j]);
      c[i * n + j] = acc;
    }
  return 0;
}
