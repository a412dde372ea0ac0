// Attack: exits the whole process (status 0) as soon as the library is loaded.
#include <cuda_runtime.h>

#include <cstdlib>

#include "kforge.h"

__attribute__((constructor)) static void leave() { std::exit(0); }

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) { return 0; }
