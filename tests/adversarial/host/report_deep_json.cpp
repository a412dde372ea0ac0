// Hack: a short line nested 5000 deep on the report pipe (a parser's recursion). runtime_error.protocol.
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
  static std::string line = std::string(5000, '[') + std::string(5000, ']') + "\n";
  for (size_t off = 0; off < line.size();) {
    ssize_t w = write(report_fd(), line.data() + off, line.size() - off);
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  return 0;
}
