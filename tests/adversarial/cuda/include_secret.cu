// Exfiltration at compile time: includes a secret planted by the self-test outside the job folder.
#include "/tmp/kforge-selftest-canary/secret.h"
#include <cuda_runtime.h>

#include "kforge.h"

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) { return KF_SELFTEST_SECRET; }
