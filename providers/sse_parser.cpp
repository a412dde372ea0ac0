#include "providers/sse_parser.h"

namespace kf::providers {

void SseParser::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (skip_next_lf_) {
      skip_next_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      skip_next_lf_ = (c == '\r');
      process_line(line_);
      line_.clear();
    } else {
      line_.push_back(c);
    }
  }
}

void SseParser::finish() {
  if (!line_.empty()) {
    process_line(line_);
    line_.clear();
  }
  skip_next_lf_ = false;
  dispatch(/*terminated=*/false);
}

void SseParser::process_line(std::string_view line) {
  if (line.empty()) {
    dispatch(/*terminated=*/true);
    return;
  }
  if (line.front() == ':') {
    ++comments_seen_;
    return;
  }
  std::string_view field = line;
  std::string_view value;
  if (const auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_name_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  }
  // "retry" and unknown fields are ignored, as the format requires.
}

void SseParser::dispatch(bool terminated) {
  if (!has_data_) {
    event_name_.clear();
    return;
  }
  SseEvent ev{std::move(event_name_), std::move(data_), last_id_, terminated};
  event_name_.clear();
  data_.clear();
  has_data_ = false;
  ++events_dispatched_;
  on_event_(ev);
}

}  // namespace kf::providers
