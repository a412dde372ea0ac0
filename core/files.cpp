#include "core/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kf {
namespace {
Error io_error(const std::string& what, const std::string& path) {
  return make_error("io", what + " '" + path + "': " + std::strerror(errno));
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}
}  // namespace

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("io.read", "cannot read '" + path + "': check that it exists and is readable");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string unique_temp_suffix() {
  static std::atomic<uint64_t> next{0};
  return ".tmp." + std::to_string(::getpid()) + "." + std::to_string(next.fetch_add(1));
}

Status write_file_atomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + unique_temp_suffix();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create", tmp);
  bool good = write_all(fd, contents.data(), contents.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!good || ::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = io_error("cannot write", path);
    ::unlink(tmp.c_str());
    return e;
  }
  return ok_status();
}

Status append_line_durable(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot open", path);
  std::string data = line + "\n";
  bool good = write_all(fd, data.data(), data.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!good) return io_error("cannot append to", path);
  return ok_status();
}

}  // namespace kf
