// Hack: 80 MB of initialised data in the library (it used to compile, be judged and fill the compile
// cache). Over the 64 MiB cap: rejected.library_too_large.
#include "kforge.h"

extern "C" {
char kf_blob[80 << 20] = {1};
}

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  const volatile char* p = kf_blob;
  return p[12345] == 7 ? 1 : 0;
}
