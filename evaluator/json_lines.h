#pragma once
// One JSON-lines channel over a pair of pipes, used for both the oracle and the runner: a request is one
// JSON object on one line, and so is its answer. Reading is bounded and linear: a line may be at most
// `max_line_bytes` long and nest at most `max_depth` deep, the pending buffer is scanned for a newline
// only from where the previous scan stopped, and every wait has a deadline. Whatever arrives that is not
// one well-formed object within those bounds is an Error with a "protocol.*" code, never a crash: the
// runner's side of the channel is the candidate's (docs/evaluator.md, "Threat model").
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "core/result.h"

namespace kf::eval {

struct ChannelLimits {
  size_t max_line_bytes = 1 << 20;
  int max_depth = 64;
};

// Error codes: protocol.line_too_long, protocol.too_deep, protocol.malformed, protocol.not_object
// (the peer sent something wrong), channel.closed (end of file or a write to a closed pipe),
// channel.timeout (the deadline passed), channel.io (poll/read failed).
class JsonLinesChannel {
 public:
  JsonLinesChannel() = default;
  JsonLinesChannel(int read_fd, int write_fd, ChannelLimits limits);
  ~JsonLinesChannel();
  JsonLinesChannel(JsonLinesChannel&& other) noexcept;
  JsonLinesChannel& operator=(JsonLinesChannel&& other) noexcept;
  JsonLinesChannel(const JsonLinesChannel&) = delete;
  JsonLinesChannel& operator=(const JsonLinesChannel&) = delete;

  bool open() const { return read_fd_ >= 0; }
  Status send(const nlohmann::json& message);
  // The next line as a JSON object, waiting until `deadline_s` (process.h's now_s() clock).
  Result<nlohmann::json> receive(double deadline_s);
  // Like receive() but returns the raw line (for callers that parse it themselves); same bounds.
  Result<std::string> receive_line(double deadline_s);
  void close();  // closes both descriptors
  // Poll without sleeping for up to `seconds` of each receive before blocking: a reply that finds the reader
  // asleep waits for the scheduler (up to a tenth of a millisecond after a long sleep), which is noise in a
  // round timed around the receive. Costs a core while it lasts.
  void set_spin(double seconds) { spin_s_ = seconds; }

 private:
  int read_fd_ = -1, write_fd_ = -1;
  ChannelLimits limits_;
  std::string pending_;
  size_t scanned_ = 0;  // pending_[0, scanned_) holds no newline
  bool eof_ = false;
  double spin_s_ = 0;
};

// Nesting depth of a JSON text (objects and arrays; brackets inside strings do not count), in one pass.
int json_depth(const std::string& text);

}  // namespace kf::eval
