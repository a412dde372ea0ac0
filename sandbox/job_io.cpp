#include "sandbox/job_io.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

namespace kf::sandbox {

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.r = fds[0];
  p.w = fds[1];
  return true;
}

bool Capture::drain(char* buf, size_t buf_size) {
  const ssize_t n = ::read(fd, buf, buf_size);
  if (n > 0) {
    const size_t room = cap - std::min(cap, text->size());
    const size_t take = std::min(room, static_cast<size_t>(n));
    text->append(buf, take);
    if (take < static_cast<size_t>(n)) *truncated = true;
    return true;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  ::close(fd);
  fd = -1;
  return false;
}

}  // namespace kf::sandbox
