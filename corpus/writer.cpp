#include "corpus/writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/log.h"
#include "core/secrets.h"

namespace kf::corpus {
namespace fs = std::filesystem;

Result<std::unique_ptr<Writer>> Writer::open(const std::string& dir, const std::string& file_name, double wait_s) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("corpus.mkdir", "cannot create '" + dir + "': " + ec.message());
  const std::string file = (fs::path(dir) / file_name).string();
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("corpus.open", "cannot open '" + file + "': " + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(wait_s, 0.0));
  bool told = false;
  int e = 0;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    e = errno;
    if (e != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) break;
    if (!std::exchange(told, true))
      log::info("waiting up to " + std::to_string(static_cast<int>(wait_s)) + " s for the run appending to '" + file +
                "' to end");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    e = 0;
  }
  if (e != 0) {
    ::close(fd);
    if (e == EWOULDBLOCK)
      return make_error("corpus.busy", "another kforge run is appending to '" + file +
                                           "' (the same --shard started twice, or two runs of one folder); wait "
                                           "for it to end or use another --out folder");
    return make_error("corpus.lock", "cannot lock '" + file + "': " + std::strerror(e));
  }
  return std::unique_ptr<Writer>(new Writer(dir, file_name, fd));
}

Status Writer::repair_torn_tail() {
  const std::string file = (fs::path(dir_) / file_).string();
  struct stat st {};
  if (::fstat(lock_fd_, &st) != 0)
    return make_error("corpus.read", "cannot stat '" + file + "': " + std::strerror(errno));
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) return ok_status();
  // The last newline, read backwards in blocks.
  uint64_t end = size;
  std::vector<char> block(1 << 16);
  std::optional<uint64_t> last_newline;
  while (end > 0 && !last_newline) {
    const uint64_t start = end > block.size() ? end - block.size() : 0;
    const ssize_t n = ::pread(lock_fd_, block.data(), end - start, static_cast<off_t>(start));
    if (n != static_cast<ssize_t>(end - start))
      return make_error("corpus.read", "cannot read '" + file + "': " + std::strerror(errno));
    for (uint64_t i = end - start; i > 0; --i)
      if (block[i - 1] == '\n') {
        last_newline = start + i - 1;
        break;
      }
    end = start;
  }
  const uint64_t keep = last_newline ? *last_newline + 1 : 0;
  if (keep == size) return ok_status();
  std::string fragment(size - keep, '\0');
  if (::pread(lock_fd_, fragment.data(), fragment.size(), static_cast<off_t>(keep)) !=
      static_cast<ssize_t>(fragment.size()))
    return make_error("corpus.read", "cannot read '" + file + "': " + std::strerror(errno));
  std::string stamp = utc_now_iso();
  for (char& c : stamp)
    if (c == ':') c = '-';
  const std::string rel = "torn/" + file_ + "." + stamp + ".fragment";
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "torn", ec);
  if (auto w = write_file_atomic((fs::path(dir_) / rel).string(), fragment); !w)
    return make_error("corpus.repair", "'" + file + "' ends with a torn record that cannot be kept aside (" +
                                           w.error().message + "); free disk space and rerun");
  if (::ftruncate(lock_fd_, static_cast<off_t>(keep)) != 0 || ::fsync(lock_fd_) != 0)
    return make_error("corpus.repair", "cannot cut the torn record off '" + file + "': " + std::strerror(errno));
  log::warn(
      "corpus " + file + " ended with a torn record (" + std::to_string(fragment.size()) +
      " bytes of an interrupted write, e.g. a full disk or a kill): cut off before appending, its bytes kept in " +
      (fs::path(dir_) / rel).string());
  return ok_status();
}

Writer::~Writer() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

Status Writer::append(const Record& record) {
  const std::string line = secrets::redact(record.to_json().dump());
  std::lock_guard<std::mutex> lock(mu_);
  if (!tail_checked_) {
    if (auto st = repair_torn_tail(); !st) return st;
    tail_checked_ = true;
  }
  auto st = append_line_durable((fs::path(dir_) / file_).string(), line);
  if (!st) tail_checked_ = false;  // a partial write (a full disk) is cut off before the next append
  return st;
}

Result<std::string> Writer::write_companion(const std::string& subdir, const std::string& name,
                                            const std::string& text) {
  const std::string rel = subdir + "/" + name;
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / subdir, ec);
  if (ec)
    return make_error("corpus.mkdir", "cannot create '" + (fs::path(dir_) / subdir).string() + "': " + ec.message());
  if (auto st = write_file_atomic((fs::path(dir_) / rel).string(), text); !st) return st.error();
  return rel;
}

}  // namespace kf::corpus
