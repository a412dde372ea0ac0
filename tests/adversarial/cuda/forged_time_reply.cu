// Hack: writes its own "round complete" answer on the runner's report pipe as soon as a timed round
// starts, and launches ~20 ms of GPU work without waiting for it. The trusted side scans the outputs at
// that moment and finds them unwritten: rejected, never a fast time.
#include <fcntl.h>
#include <unistd.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void slow_scale_add(const float* x, const float* y, float* o, int64_t n, long long spin) {
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

static int report_fd() {
  char buf[4096];
  int f = open("/proc/self/cmdline", O_RDONLY);
  if (f < 0) return -1;
  ssize_t n = read(f, buf, sizeof buf - 1);
  close(f);
  if (n <= 0) return -1;
  buf[n] = 0;
  for (ssize_t i = 0; i < n;) {
    const char* a = buf + i;
    size_t len = strlen(a);
    if (strcmp(a, "--report-fd") == 0 && i + static_cast<ssize_t>(len) + 1 < n) return atoi(a + len + 1);
    i += static_cast<ssize_t>(len) + 1;
  }
  return -1;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  static int calls = 0;
  if (++calls > 4) {
    const char* forged = "{\"ok\":true,\"events_ms\":0.001}\n";
    (void)!write(report_fd(), forged, strlen(forged));
  }
  const int64_t n = numel(out[0]);
  slow_scale_add<<<64, 256, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                       (float*)out[0].data, n, 20000000LL * 2);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
