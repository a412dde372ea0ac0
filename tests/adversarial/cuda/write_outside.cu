// Attack: tries to write outside its job folder. Paths that must be unwritable make it return 77
// when the write succeeds; /tmp and /dev/shm writes may succeed (they are private to the job) and
// the self-test's caller checks that they never appear on the host.
#include <fcntl.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void scale_add(const float* x, const float* y, float* o, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

inline int honest(const kf_tensor* in, kf_tensor* out, void* stream) {
  const int64_t n = numel(out[0]);
  scale_add<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)in[0].data, (const float*)in[1].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}


static bool wrote(const char* path) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = write(fd, "pwned\n", 6) == 6;
  close(fd);
  return ok;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  (void)wrote("/tmp/kforge-selftest-pwned");
  (void)wrote("/dev/shm/kforge-selftest-pwned");
  (void)wrote("../kforge-selftest-pwned");  // the job folder's parent: private to the job in the sandbox
  if (wrote("/tmp/kforge-selftest-canary/owned.txt") || wrote("/var/tmp/kforge-selftest-pwned") ||
      wrote("/usr/kforge-selftest-pwned") || wrote("/etc/kforge-selftest-pwned") ||
      wrote("/kforge-selftest-pwned"))
    return 77;
  return honest(in, out, stream);
}
