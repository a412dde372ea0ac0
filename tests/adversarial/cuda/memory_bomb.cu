// Attack: allocates and touches host memory until something stops it (the job's memory limit).
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  const size_t chunk = size_t{256} << 20;
  for (int i = 0; i < 256; ++i) {  // up to 64 GiB
    char* p = static_cast<char*>(std::malloc(chunk));
    if (!p) return 12;
    std::memset(p, 0x5a, chunk);
  }
  return 0;
}
