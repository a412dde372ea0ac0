// Hack: takes 20 ms per call but defines clock_gettime / gettimeofday / clock (and the C++ clocks'
// underlying calls) to make time appear to stand still. The harness must still measure >= 20 ms.
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>

#include "kforge.h"

extern "C" int clock_gettime(clockid_t, struct timespec* ts) {
  ts->tv_sec = 1;
  ts->tv_nsec = 0;
  return 0;
}
extern "C" int gettimeofday(struct timeval* tv, void*) {
  tv->tv_sec = 1;
  tv->tv_usec = 0;
  return 0;
}
extern "C" clock_t clock() { return 0; }

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  // Busy-waits ~20 ms, measured through the raw system call, which the hooks above do not cover.
  struct timespec t0, t;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
  do {
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
  return 0;
}
