// Attack: never returns (busy loop on the host side of a CUDA candidate).
#include <cuda_runtime.h>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  volatile unsigned long spin = 0;
  for (;;) spin = spin + 1;
}
