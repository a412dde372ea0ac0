#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  volatile int* p = nullptr;
  *p = 1;  // segfault on purpose
  return 0;
}
