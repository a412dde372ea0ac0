#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  volatile int spin = 1;
  while (spin) {
  }
  return 0;
}
