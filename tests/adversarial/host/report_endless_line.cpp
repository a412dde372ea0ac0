// Hack: writes 1 GiB without a newline on the report pipe (the supervisor used to rescan its pending
// buffer on every read, at 100% CPU). The line limit ends it at once: runtime_error.protocol.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "kforge.h"

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

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*) {
  static std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 1024; ++i)
    if (write(report_fd(), chunk.data(), chunk.size()) <= 0) break;
  return 0;
}
