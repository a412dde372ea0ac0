#include "corpus/writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/files.h"
#include "core/log.h"
#include "core/secrets.h"

namespace kf::corpus {
namespace fs = std::filesystem;

Result<std::unique_ptr<Writer>> Writer::open(const std::string& dir, const std::string& file_name) {
  std::error_code ec;
  for (const char* sub : {"", "replies", "sources"}) {
    fs::create_directories(fs::path(dir) / sub, ec);
    if (ec)
      return make_error("corpus.mkdir", "cannot create '" + (fs::path(dir) / sub).string() + "': " + ec.message());
  }
  const std::string file = (fs::path(dir) / file_name).string();
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("corpus.open", "cannot open '" + file + "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      return make_error("corpus.busy", "another kforge run is appending to '" + file +
                                           "' (the same --shard started twice, or two runs of one folder); wait "
                                           "for it to end or use another --out folder");
    return make_error("corpus.lock", "cannot lock '" + file + "': " + std::strerror(e));
  }
  if (fs::file_size(file) > 0) {
    std::ifstream in(file, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = 0;
    in.get(last);
    if (last != '\n') {
      log::warn("corpus " + file + " ends with a torn record (interrupted write); it is ignored");
      if (auto st = append_line_durable(file, ""); !st) {
        ::close(fd);
        return st.error();
      }
    }
  }
  return std::unique_ptr<Writer>(new Writer(dir, file_name, fd));
}

Writer::~Writer() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

Status Writer::append(const Record& record) {
  const std::string line = secrets::redact(record.to_json().dump());
  std::lock_guard<std::mutex> lock(mu_);
  return append_line_durable((fs::path(dir_) / file_).string(), line);
}

Result<std::string> Writer::write_companion(const std::string& subdir, const std::string& name,
                                            const std::string& text) {
  const std::string rel = subdir + "/" + name;
  if (auto st = write_file_atomic((fs::path(dir_) / rel).string(), text); !st) return st.error();
  return rel;
}

}  // namespace kf::corpus
