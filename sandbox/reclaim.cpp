#include "sandbox/reclaim.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace kf::sandbox::reclaim {
namespace {

constexpr size_t kPath = 4096;

// DIR + "/" + NAME into `out` (false when it does not fit).
bool join(char (&out)[kPath], const char* dir, const char* name) {
  const size_t a = std::strlen(dir), b = std::strlen(name);
  if (a + 1 + b + 1 > kPath) return false;
  std::memcpy(out, dir, a);
  out[a] = '/';
  std::memcpy(out + a + 1, name, b + 1);
  return true;
}

bool write_small(const char* dir, const char* file, const char* text) {
  char path[kPath];
  if (!join(path, dir, file)) return false;
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const size_t n = std::strlen(text);
  const bool ok = ::write(fd, text, n) == static_cast<ssize_t>(n);
  ::close(fd);
  return ok;
}

// SIGKILLs every PID in DIR/cgroup.procs; returns how many there were (-1: the file cannot be read).
int kill_listed(const char* dir) {
  char path[kPath];
  if (!join(path, dir, "cgroup.procs")) return -1;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int count = 0;
  long pid = 0;
  bool in_number = false;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
        in_number = true;
      } else if (in_number) {
        if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
        ++count;
        pid = 0;
        in_number = false;
      }
    }
  }
  if (in_number) {
    if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    ++count;
  }
  ::close(fd);
  return count;
}

void nap_ms(long ms) {
  timespec t{0, ms * 1000000L};
  while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

bool remove_under(int dirfd, int depth) {
  if (depth > 64) return false;
  alignas(8) char buf[4096];
  for (int pass = 0; pass < 1000; ++pass) {
    ::lseek(dirfd, 0, SEEK_SET);
    bool removed_any = false, left_any = false;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, dirfd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<struct dirent64*>(buf + off);
        off += d->d_reclen;
        const char* name = d->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        if (::unlinkat(dirfd, name, 0) == 0) {
          removed_any = true;
          continue;
        }
        if (errno != EISDIR && errno != EPERM) {
          left_any = true;
          continue;
        }
        const int sub = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
          ::fchmod(sub, 0700);  // a folder the job made unwritable
          remove_under(sub, depth + 1);
          ::close(sub);
        }
        if (::unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
          removed_any = true;
        else
          left_any = true;
      }
    }
    if (!left_any) return true;
    if (!removed_any) return false;
  }
  return false;
}

}  // namespace

bool kill_and_thaw(const char* dir) {
  const int before = kill_listed(dir);
  if (before < 0) return true;  // no such group
  write_small(dir, "cgroup.kill", "1");
  write_small(dir, "freezer.state", "THAWED");
  write_small(dir, "cgroup.freeze", "0");
  return before == 0;
}

bool remove_group(const char* dir) {
  struct stat st {};
  if (::stat(dir, &st) != 0) return true;
  for (int round = 0; round < 200; ++round) {
    kill_and_thaw(dir);
    if (::rmdir(dir) == 0 || errno == ENOENT) return true;
    nap_ms(10);
  }
  return false;
}

bool remove_tree(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || ::unlink(path) == 0;
  remove_under(fd, 0);
  ::close(fd);
  return ::rmdir(path) == 0 || errno == ENOENT;
}

}  // namespace kf::sandbox::reclaim
