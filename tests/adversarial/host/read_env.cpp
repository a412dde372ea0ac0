// Attack: looks for secrets in its environment (the self-test plants KF_SELFTEST_CANARY_SECRET in
// kforge's own environment). Computes the right answer only when nothing leaked; returns 77
// (a runtime error) when it found something.
#include <cstdlib>
#include <cstring>

#include "kforge.h"

extern char** environ;

static bool leaked() {
  for (char** e = environ; e && *e; ++e) {
    const char* kv = *e;
    if (std::strstr(kv, "KF_SELFTEST_CANARY") || std::strstr(kv, "API_KEY") || std::strstr(kv, "TOKEN") ||
        std::strstr(kv, "SECRET") || std::strncmp(kv, "LD_PRELOAD", 10) == 0)
      return true;
  }
  return false;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  if (leaked()) return 77;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
