#pragma once
// Incremental parser for Server-Sent Events (the WHATWG event-stream format) as every model API
// streams it. Bytes may arrive split anywhere, even inside a CRLF pair.
#include <functional>
#include <string>
#include <string_view>

namespace kf::providers {

struct SseEvent {
  std::string event;  // the `event:` name, "" when the server sent none
  std::string data;   // `data:` lines joined with '\n'
  std::string id;     // last `id:` seen (persists across events, as the format says)
  // False only for an event flushed by finish() that never got its terminating blank line: a
  // stream cut in the middle of a line produces such an event, so callers treat a parse failure
  // of it as a truncated stream rather than a malformed one.
  bool terminated = true;
};

class SseParser {
 public:
  using Handler = std::function<void(const SseEvent&)>;
  explicit SseParser(Handler on_event) : on_event_(std::move(on_event)) {}

  void feed(std::string_view bytes);
  // End of the byte stream: a pending line and a pending event without its blank line are
  // delivered (with terminated = false).
  void finish();

  int events_dispatched() const { return events_dispatched_; }
  int comments_seen() const { return comments_seen_; }

 private:
  void process_line(std::string_view line);
  void dispatch(bool terminated);

  Handler on_event_;
  std::string line_;
  bool skip_next_lf_ = false;  // the previous chunk ended with CR: a leading LF belongs to it
  std::string event_name_;
  std::string data_;
  bool has_data_ = false;
  std::string last_id_;
  int events_dispatched_ = 0;
  int comments_seen_ = 0;
};

}  // namespace kf::providers
