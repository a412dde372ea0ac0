#include "agent/search/structure.h"

#include <cctype>
#include <initializer_list>

namespace kf::agent::search {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The code of a model's answer: the text inside its ``` fences, or all of it when it has none.
std::string code_of(std::string_view answer) {
  if (answer.find("```") == std::string_view::npos) return std::string(answer);
  std::string code;
  for (size_t open = answer.find("```"); open != std::string_view::npos;) {
    const size_t body = answer.find('\n', open);
    if (body == std::string_view::npos) break;
    const size_t close = answer.find("```", body);
    code.append(answer.substr(body, close == std::string_view::npos ? std::string_view::npos : close - body));
    if (close == std::string_view::npos) break;
    open = answer.find("```", close + 3);
  }
  return code;
}

// Occurrences of `word` standing alone: at a word start, and followed by `next` after blanks, or, where
// `next` is '\0', by any character that cannot continue the word.
int count_word(std::string_view text, std::string_view word, char next) {
  int n = 0;
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + word.size())) {
    if (at > 0 && word_char(text[at - 1])) continue;
    size_t after = at + word.size();
    if (next == '\0') {
      if (after < text.size() && word_char(text[after])) continue;
    } else {
      while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
      if (after >= text.size() || text[after] != next) continue;
    }
    ++n;
  }
  return n;
}

// Python's loops (Triton kernels, ModelNew): lines that start with `for ` or `while ` and end with ':'.
int python_loops(std::string_view text) {
  int n = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    const size_t first = line.find_first_not_of(" \t");
    const size_t last = line.find_last_not_of(" \t\r");
    if (first != std::string_view::npos && line[last] == ':' &&
        (line.substr(first, 4) == "for " || line.substr(first, 6) == "while "))
      ++n;
    start = end + 1;
  }
  return n;
}

bool uses_any(std::string_view text, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (count_word(text, w, '\0') > 0) return true;
  return false;
}

}  // namespace

std::string kernel_structure(std::string_view source) {
  const std::string code = code_of(source);
  const int loops = count_word(code, "for", '(') + count_word(code, "while", '(') + python_loops(code);
  std::string s = "loops=" + std::to_string(loops);
  if (uses_any(code, {"__shared__", "tl.make_block_ptr"})) s += " shared";
  if (uses_any(code, {"wmma", "mma_sync", "wgmma", "mma", "tl.dot"})) s += " mma";
  if (uses_any(code, {"float4", "float2", "half2", "__half2", "__nv_bfloat162", "int4", "__m256", "__m512"}))
    s += " vector";
  return s;
}

}  // namespace kf::agent::search
