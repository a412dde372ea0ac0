// Hack: memoises outputs on a fingerprint of the full input contents on a problem whose shapes depend on the
// seed, and pays 20 ms only on a miss. Timed rounds used to repeat the trials' integer inputs exactly there,
// so every timed call hit (fake speed); now each round permutes them afresh: every call misses, and the time
// stays at or above the real 20 ms.
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

static uint64_t fingerprint(const kf_tensor& t, uint64_t h) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  const unsigned char* b = static_cast<const unsigned char*>(t.data);
  for (int64_t i = 0; i < n * 8; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return (h ^ static_cast<uint64_t>(n)) * 1099511628211ull;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 3 || n_out != 1) return 2;
  static std::map<uint64_t, std::vector<float>> cache;
  const int64_t bags = out[0].shape[0], dim = out[0].shape[1], rows = in[2].shape[0];
  float* o = static_cast<float*>(out[0].data);
  const uint64_t h = fingerprint(in[1], fingerprint(in[0], 1469598103934665603ull));
  if (auto it = cache.find(h); it != cache.end()) {
    std::memcpy(o, it->second.data(), it->second.size() * sizeof(float));
    return 0;
  }
  busy_ms(20);
  const int64_t* idx = static_cast<const int64_t*>(in[0].data);
  const int64_t* off = static_cast<const int64_t*>(in[1].data);
  const float* w = static_cast<const float*>(in[2].data);
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t c = 0; c < dim; ++c) {
      double acc = 0;
      for (int64_t j = off[b]; j < off[b + 1]; ++j) {
        if (idx[j] < 0 || idx[j] >= rows) return 4;
        acc += w[idx[j] * dim + c];
      }
      o[b * dim + c] = off[b + 1] > off[b] ? static_cast<float>(acc / static_cast<double>(off[b + 1] - off[b])) : 0.f;
    }
  if (cache.size() < 4096) cache[h] = std::vector<float>(o, o + bags * dim);
  return 0;
}
