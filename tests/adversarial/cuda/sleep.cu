// Attack: sleeps for an hour.
#include <cuda_runtime.h>
#include <unistd.h>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  sleep(3600);
  return 0;
}
