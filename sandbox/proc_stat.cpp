#include "sandbox/proc_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>

namespace kf::sandbox {
namespace {

// The next space-separated field from `rest` on; empty when there is none.
std::string_view next_field(std::string_view& rest) {
  const size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const size_t end = rest.find_first_of(" \n");
  const std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

template <class T>
bool number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<ProcStat> ProcStat::parse(std::string_view text) {
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  ProcStat s;
  const std::string_view state = next_field(rest);
  if (state.size() != 1) return std::nullopt;
  s.state = state.front();
  long parent = 0, group = 0, session = 0;
  if (!number(next_field(rest), parent) || !number(next_field(rest), group) || !number(next_field(rest), session))
    return std::nullopt;
  s.parent = static_cast<pid_t>(parent);
  s.process_group = static_cast<pid_t>(group);
  s.session = static_cast<pid_t>(session);
  for (int field = 7; field < 22; ++field)
    if (next_field(rest).empty()) return std::nullopt;
  if (!number(next_field(rest), s.start_ticks)) return std::nullopt;
  return s;
}

std::optional<ProcStat> ProcStat::read(pid_t pid) {
  // Plain read(2), not a stream: a process that exits between the open and the read fails the read with ESRCH,
  // which libstdc++'s stream buffer turns into an exception in the middle of a scan of every process.
  const int fd = ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) text.clear();
    break;
  }
  ::close(fd);
  return parse(text);
}

}  // namespace kf::sandbox
