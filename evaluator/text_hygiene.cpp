#include "evaluator/text_hygiene.h"
#include <algorithm>

namespace kf::eval {

namespace {

// Length of a valid UTF-8 sequence starting at s[i] (0: invalid), C1 controls (U+0080..U+009F) invalid.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (n == 2 && c == 0xC2 && b(i + 1) < 0xA0) return 0;   // C1 control
  if (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
  if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogate
  if (n == 4 && c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
  if (n == 4 && c == 0xF4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
  return n;
}

}  // namespace

std::string clean_text(const std::string& text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  size_t i = 0;
  while (i < text.size() && out.size() < max_bytes) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1B) {  // ESC: skip the whole sequence
      ++i;
      if (i >= text.size()) break;
      unsigned char k = static_cast<unsigned char>(text[i]);
      if (k == '[') {  // CSI: parameters and intermediates, then one final byte 0x40..0x7E
        ++i;
        while (i < text.size() &&
               (static_cast<unsigned char>(text[i]) < 0x40 || static_cast<unsigned char>(text[i]) > 0x7E))
          ++i;
        ++i;
      } else if (k == ']' || k == 'P' || k == '^' || k == '_' || k == 'X') {  // OSC/DCS/PM/APC/SOS: to ST or BEL
        ++i;
        while (i < text.size()) {
          if (text[i] == '\a') {
            ++i;
            break;
          }
          if (text[i] == 0x1B && i + 1 < text.size() && text[i + 1] == '\\') {
            i += 2;
            break;
          }
          ++i;
        }
      } else {
        ++i;  // a two-byte escape
      }
      continue;
    }
    if (c == '\n' || c == '\t') {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      ++i;  // other C0 controls (\r included: it rewrites the terminal line) and DEL
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (size_t n = utf8_length(text, i); n > 0) {
      out.append(text, i, n);
      i += n;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  if (i < text.size()) out += "\n[" + std::to_string(text.size() - i) + " more bytes cut]";
  return out;
}

}  // namespace kf::eval
