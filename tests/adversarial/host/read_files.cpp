// Attack: tries to read files outside its job folder: the self-test's planted secret and
// reference, system secrets, other users' homes. Returns 77 when any of them is readable.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "kforge.h"

static bool readable(const char* path) {
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  char c;
  const bool ok = read(fd, &c, 1) >= 0;
  close(fd);
  return ok;
}

static bool listable(const char* path) {
  DIR* d = opendir(path);
  if (!d) return false;
  closedir(d);
  return true;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void*) {
  if (readable("/tmp/kforge-selftest-canary/secret.txt") || readable("/tmp/kforge-selftest-canary/reference.bin") ||
      readable("/etc/shadow") || listable("/root") || listable("/home") || listable("/etc/ssh") ||
      listable("/tmp/kforge-selftest-canary") || readable("/proc/1/environ"))
    return 77;
  const float* x = static_cast<const float*>(in[0].data);
  const float* y = static_cast<const float*>(in[1].data);
  float* o = static_cast<float*>(out[0].data);
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * x[i] + y[i];
  return 0;
}
