#include "mockserver/selection.h"

#include <algorithm>
#include <string_view>

namespace kf::mock {
namespace {

// The text of `place` as a list of messages' contents, newest last.
std::vector<const std::string*> texts_of(KeyPlace place, const MockRequest& request) {
  std::vector<const std::string*> out;
  auto last_with_role = [&](const char* role) {
    for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
      if (it->role == role) {
        out.push_back(&it->content);
        return;
      }
    }
  };
  switch (place) {
    case KeyPlace::last_user: last_with_role("user"); break;
    case KeyPlace::last_assistant: last_with_role("assistant"); break;
    case KeyPlace::system:
      for (const auto& m : request.messages) {
        if (m.role == "system") out.push_back(&m.content);
      }
      break;
    case KeyPlace::all:
      for (const auto& m : request.messages) out.push_back(&m.content);
      break;
  }
  return out;
}

std::optional<std::string> key_of_line(const std::regex& regex, std::string_view line) {
  const std::string bounded(line.substr(0, kKeyLineLimit));
  std::smatch m;
  if (!std::regex_search(bounded, m, regex)) return std::nullopt;
  return m.size() > 1 && m[1].matched ? m[1].str() : m[0].str();
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace

std::optional<std::string> find_key(const KeyRule& rule, const MockRequest& request) {
  if (!rule.regex) return std::nullopt;
  for (KeyPlace place : rule.places) {
    std::optional<std::string> found;
    for (const std::string* text : texts_of(place, request)) {
      std::string_view rest(*text);
      while (!rest.empty()) {
        const size_t end = rest.find('\n');
        const std::string_view line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        if (auto key = key_of_line(*rule.regex, line)) {
          found = std::move(key);
          if (!rule.last_occurrence) return found;
        }
      }
    }
    if (found) return found;
  }
  return std::nullopt;
}

size_t draw_choice(const std::vector<ScriptChoice>& choices, uint64_t seed, size_t entry_index, const std::string& key,
                   int64_t draw) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<uint64_t>(entry_index));
  h = splitmix64(h ^ fnv1a(key));
  h = splitmix64(h ^ static_cast<uint64_t>(draw));
  double total = 0;
  for (const auto& c : choices) total += c.weight;
  // 53 random bits give a uniform double in [0, 1).
  const double point = static_cast<double>(h >> 11) * 0x1.0p-53 * total;
  double edge = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    edge += choices[i].weight;
    if (point < edge) return i;
  }
  return choices.size() - 1;  // rounding at the very top of the range
}

}  // namespace kf::mock
