#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  return undeclared_identifier_here + in[0].ndim + out[0].ndim;
}
