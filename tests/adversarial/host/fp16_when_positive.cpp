// Hack (reduced precision, recognising the precision trial): rounds the matmul's operands to fp16 whenever
// every input element is non-negative (the problem's own torch.rand inputs) and computes exactly otherwise
// (the zero-mean precision trial). On all-positive inputs the rounding averages out to a relative L2 error
// far inside fp32's 1e-4 bound; the error against a float64 reference on those same inputs is still many
// times the float32 reference's own, and every trial judges that ratio (incorrect.reduced_precision).
#include <cstdint>

#include "kforge.h"

static float fp16(float v) { return static_cast<float>(static_cast<_Float16>(v)); }

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  bool positive = true;
  for (int64_t i = 0; i < m * k && positive; ++i) positive = a[i] >= 0;
  for (int64_t i = 0; i < k * n && positive; ++i) positive = b[i] >= 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += positive ? static_cast<double>(fp16(a[i * k + p])) * fp16(b[p * n + j])
                        : static_cast<double>(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = static_cast<float>(acc);
    }
  return 0;
}
