// Hack: memoises outputs on a hash of the full input contents (the timing loop used to repeat the same
// inputs) and pays 20 ms only on a miss. Timed rounds draw fresh inputs: every call misses, so the time
// must stay at or above the real 20 ms.
#include <time.h>

#include <cstring>
#include <map>
#include <vector>

#include "kforge.h"

static void busy_ms(long ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  static std::map<uint64_t, std::vector<float>> cache;
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  const unsigned char* bytes[2] = {static_cast<const unsigned char*>(in[0].data),
                                   static_cast<const unsigned char*>(in[1].data)};
  uint64_t h = 1469598103934665603ull;
  for (auto* b : bytes)
    for (int64_t i = 0; i < n * 4; ++i) h = (h ^ b[i]) * 1099511628211ull;
  float* o = static_cast<float*>(out[0].data);
  if (auto it = cache.find(h); it != cache.end()) {
    std::memcpy(o, it->second.data(), static_cast<size_t>(n) * 4);
    return 0;
  }
  busy_ms(20);
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  if (cache.size() < 512) cache[h] = std::vector<float>(o, o + n);
  return 0;
}
