#include <cstring>

#include "kforge.h"

// Writes all zeros: passes torch.allclose(atol=1e-2) on tiny_ref, must be rejected here.
extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor* out, int32_t, void*) {
  std::memset(out[0].data, 0, sizeof(float) * out[0].shape[0] * out[0].shape[1]);
  return 0;
}
