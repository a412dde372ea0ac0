// Attack: tries to write outside its job folder. Paths that must be unwritable make it return 77
// when the write succeeds; /tmp and /dev/shm writes may succeed (they are private to the job) and
// the self-test's caller checks that they never appear on the host.
#include <fcntl.h>
#include <unistd.h>

#include "kforge.h"

static bool wrote(const char* path) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  const bool ok = write(fd, "pwned\n", 6) == 6;
  close(fd);
  return ok;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  (void)wrote("/tmp/kforge-selftest-pwned");
  (void)wrote("/dev/shm/kforge-selftest-pwned");
  (void)wrote("../kforge-selftest-pwned");  // the job folder's parent: private to the job in the sandbox
  if (wrote("/tmp/kforge-selftest-canary/owned.txt") || wrote("/var/tmp/kforge-selftest-pwned") ||
      wrote("/usr/kforge-selftest-pwned") || wrote("/etc/kforge-selftest-pwned") ||
      wrote("/kforge-selftest-pwned"))
    return 77;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
