#include "providers/think_splitter.h"

#include <algorithm>

namespace kf::providers {
namespace {
constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

// Length of the longest suffix of `text` that is a proper prefix of `tag`.
size_t partial_tag_suffix(std::string_view text, std::string_view tag) {
  const size_t max_len = std::min(text.size(), tag.size() - 1);
  for (size_t len = max_len; len > 0; --len) {
    if (text.substr(text.size() - len) == tag.substr(0, len)) return len;
  }
  return 0;
}

std::string_view trim_leading_newlines(std::string_view s) {
  while (!s.empty() && (s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  return s;
}
}  // namespace

void ThinkTagSplitter::emit(std::string_view text) {
  if (text.empty()) return;
  switch (state_) {
    case State::undecided: undecided_.append(text); break;
    case State::thinking: reasoning_.append(text); break;
    case State::answering:
      // The blank line templates put after </think> is layout, not answer.
      if (answer_.empty()) text = trim_leading_newlines(text);
      answer_.append(text);
      break;
  }
}

void ThinkTagSplitter::on_open_tag() {
  if (state_ == State::undecided) {
    answer_.append(undecided_);  // usually empty or whitespace
    undecided_.clear();
  }
  state_ = State::thinking;
}

void ThinkTagSplitter::on_close_tag() {
  if (state_ == State::undecided) {
    reasoning_.append(undecided_);  // the opening tag was in the prompt
    undecided_.clear();
  }
  // A stray </think> while answering is dropped: it carries no text.
  state_ = State::answering;
}

void ThinkTagSplitter::feed(std::string_view chunk) {
  pending_.append(chunk);
  std::string_view rest = pending_;
  while (!rest.empty()) {
    const size_t open = rest.find(kOpen);
    const size_t close = rest.find(kClose);
    const size_t tag = std::min(open, close);
    if (tag == std::string_view::npos) break;
    emit(rest.substr(0, tag));
    if (tag == open) {
      on_open_tag();
      rest.remove_prefix(tag + kOpen.size());
    } else {
      on_close_tag();
      rest.remove_prefix(tag + kClose.size());
    }
  }
  const size_t hold = std::max(partial_tag_suffix(rest, kOpen), partial_tag_suffix(rest, kClose));
  emit(rest.substr(0, rest.size() - hold));
  pending_ = std::string(rest.substr(rest.size() - hold));
}

void ThinkTagSplitter::finish() {
  if (finished_) return;
  finished_ = true;
  emit(pending_);
  pending_.clear();
  if (state_ == State::undecided) {
    answer_.append(undecided_);
    undecided_.clear();
    state_ = State::answering;
  }
}

}  // namespace kf::providers
