#include <cstring>

#include "kforge.h"

// Copies input x to the output.
extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  std::memcpy(out[0].data, in[0].data, sizeof(float) * out[0].shape[0] * out[0].shape[1]);
  return 0;
}
