// Hack: a watcher thread computes the output as soon as new inputs appear (between the oracle's prepare
// and the call), and the call returns at once when the watcher got there first. The runner is frozen
// while the trusted side prepares, so the watcher never gets ahead: the time stays >= the real 20 ms.
#include <time.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "kforge.h"

namespace {
std::mutex mu;
const float* wx = nullptr;
const float* wy = nullptr;
float* wo = nullptr;
int64_t wn = 0;
float seen_x0 = 0, done_x0 = -12345.f;

void busy_ms(long ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

void compute(const float* x, const float* y, float* o, int64_t n) {
  busy_ms(20);
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
}

void watch() {
  for (;;) {
    std::unique_lock lock(mu);
    if (wx && wx[0] != seen_x0) {
      seen_x0 = wx[0];
      compute(wx, wy, wo, wn);
      done_x0 = seen_x0;
    }
    lock.unlock();
    struct timespec ts{0, 100000};
    nanosleep(&ts, nullptr);
  }
}
}  // namespace

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watch).detach(); });
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  const float* x = static_cast<const float*>(in[0].data);
  std::lock_guard lock(mu);
  wx = x;
  wy = static_cast<const float*>(in[1].data);
  wo = static_cast<float*>(out[0].data);
  wn = n;
  if (done_x0 == x[0]) return 0;  // the watcher already did it
  compute(x, wy, wo, n);
  seen_x0 = done_x0 = x[0];
  return 0;
}
