#include "evaluator/json_lines.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/time.h"

namespace kf::eval {

int json_depth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return deepest;
}

JsonLinesChannel::JsonLinesChannel(int read_fd, int write_fd, ChannelLimits limits)
    : read_fd_(read_fd), write_fd_(write_fd), limits_(limits) {}

JsonLinesChannel::~JsonLinesChannel() { close(); }

JsonLinesChannel::JsonLinesChannel(JsonLinesChannel&& o) noexcept { *this = std::move(o); }

JsonLinesChannel& JsonLinesChannel::operator=(JsonLinesChannel&& o) noexcept {
  if (this != &o) {
    close();
    read_fd_ = o.read_fd_;
    write_fd_ = o.write_fd_;
    limits_ = o.limits_;
    pending_ = std::move(o.pending_);
    scanned_ = o.scanned_;
    eof_ = o.eof_;
    spin_s_ = o.spin_s_;
    o.read_fd_ = o.write_fd_ = -1;
    o.pending_.clear();
    o.scanned_ = 0;
  }
  return *this;
}

void JsonLinesChannel::close() {
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0) ::close(write_fd_);
  read_fd_ = write_fd_ = -1;
  pending_.clear();
  scanned_ = 0;
  eof_ = false;
}

Status JsonLinesChannel::send(const nlohmann::json& message) {
  if (write_fd_ < 0) return make_error("channel.closed", "the channel is closed");
  std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(write_fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error("channel.closed", std::string("the peer closed its end: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<std::string> JsonLinesChannel::receive_line(double deadline_s) {
  if (read_fd_ < 0) return make_error("channel.closed", "the channel is closed");
  char buf[65536];
  const double spin_until = spin_s_ > 0 ? now_s() + spin_s_ : 0;
  for (;;) {
    // Only the bytes appended since the last scan are searched: linear in what arrives.
    auto nl = pending_.find('\n', scanned_);
    if (nl != std::string::npos) {
      if (nl > limits_.max_line_bytes)
        return make_error("protocol.line_too_long", "a line of " + std::to_string(nl) + " bytes (the limit is " +
                                                        std::to_string(limits_.max_line_bytes) + ")");
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      scanned_ = 0;
      return line;
    }
    scanned_ = pending_.size();
    if (pending_.size() > limits_.max_line_bytes)
      return make_error("protocol.line_too_long",
                        "more than " + std::to_string(limits_.max_line_bytes) + " bytes without a newline");
    if (eof_) {
      if (pending_.empty()) return make_error("channel.closed", "end of file");
      return make_error("protocol.malformed", "the last line has no newline (" + std::to_string(pending_.size()) +
                                                  " bytes before end of file)");
    }
    double left = deadline_s - now_s();
    if (left <= 0) return make_error("channel.timeout", "no complete line before the deadline");
    pollfd p{read_fd_, POLLIN, 0};
    const bool spinning = spin_until > 0 && now_s() < spin_until;
    int r = ::poll(&p, 1, spinning ? 0 : static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) return make_error("channel.io", std::string("poll: ") + std::strerror(errno));
    if (r <= 0) continue;
    size_t want = std::min(sizeof buf, limits_.max_line_bytes + 2 - std::min(pending_.size(), limits_.max_line_bytes));
    ssize_t n = ::read(read_fd_, buf, want);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return make_error("channel.io", std::string("read: ") + std::strerror(errno));
    if (n == 0) {
      eof_ = true;
      continue;
    }
    pending_.append(buf, static_cast<size_t>(n));
  }
}

Result<nlohmann::json> JsonLinesChannel::receive(double deadline_s) {
  auto line = receive_line(deadline_s);
  if (!line.ok()) return line.error();
  if (int d = json_depth(*line); d > limits_.max_depth)
    return make_error("protocol.too_deep", "a line nesting " + std::to_string(d) + " levels deep (the limit is " +
                                               std::to_string(limits_.max_depth) + ")");
  auto j = nlohmann::json::parse(*line, nullptr, false);
  if (j.is_discarded()) return make_error("protocol.malformed", "not JSON: " + line->substr(0, 120));
  if (!j.is_object())
    return make_error("protocol.not_object", "a JSON " + std::string(j.type_name()) + ", not an object");
  return j;
}

}  // namespace kf::eval
