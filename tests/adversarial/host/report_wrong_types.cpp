// Hack: writes a well-formed line with fields of the wrong types on the report pipe ("ok" a string,
// "code" a number): read by type, it is a runtime error, never a crash of the supervisor.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

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
  const char* junk = "{\"ok\":\"yes\",\"code\":7,\"detail\":[1],\"events_ms\":\"fast\"}\n";
  (void)!write(report_fd(), junk, strlen(junk));
  return 0;
}
