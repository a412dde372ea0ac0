// Compile bomb: an endless include.
#include "/dev/zero"
#include <cuda_runtime.h>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) { return 0; }
