#include "corpus/summary.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "corpus/record_fields.h"

namespace kf::corpus {
namespace {

enum class Type { none, string, number, integer, boolean, null, object, array };

bool digit(char c) { return c >= '0' && c <= '9'; }

// The first byte from p on that ends a string's plain run: a quote, a backslash or a control character (end
// when none). Eight bytes at a time (most of a corpus line is string text), with the word tests for "has a
// byte equal to / below n": a flag may be false only in a byte above a true one, so the lowest flag is exact.
const char* plain_run_end(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
      uint64_t w = 0;
      std::memcpy(&w, p, 8);
      const uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
      const uint64_t stops =
          (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | ((w - ones * 0x20) & ~w)) & highs;
      if (stops) return p + (std::countr_zero(stops) / 8);
      p += 8;
    }
  }
  while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
  return p;
}

// The first byte from p on that is not a decimal digit (end when none); eight at a time where all are digits
// (timings are written with up to 17 of them).
const char* digits_end(const char* p, const char* end) {
  constexpr uint64_t high_nibbles = 0xF0F0F0F0F0F0F0F0ULL, threes = 0x3333333333333333ULL;
  while (end - p >= 8) {
    uint64_t w = 0;
    std::memcpy(&w, p, 8);
    // Every byte is 0x30..0x39: its high nibble is 3, and adding 6 does not carry it out of 3.
    if (((w & high_nibbles) | (((w + 0x0606060606060606ULL) & high_nibbles) >> 4)) != threes) break;
    p += 8;
  }
  while (p < end && digit(*p)) ++p;
  return p;
}

// A strict single-pass JSON scanner over one line. Values are skipped unless asked for.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}
  bool at_end() {
    ws();
    return p_ == end_;
  }
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  bool eat(char c) {
    ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  char peek() {
    ws();
    return p_ < end_ ? *p_ : '\0';
  }
  const char* position() const { return p_; }
  // A string; its text (escapes decoded except \u, which makes the value unusable: `plain` false) into out.
  bool string(std::string* out, bool* plain = nullptr) {
    if (!eat('"')) return false;
    if (plain) *plain = true;
    const char* start = p_;
    for (;;) {
      p_ = plain_run_end(p_, end_);
      if (p_ >= end_ || static_cast<unsigned char>(*p_) < 0x20) return false;  // unterminated; raw control character
      if (*p_ == '"') {
        if (out) out->append(start, p_);
        ++p_;
        return true;
      }
      if (out) out->append(start, p_);
      ++p_;  // backslash
      if (p_ >= end_) return false;
      const char e = *p_++;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          if (out) out->push_back(e);
          break;
        case 'b':
          if (out) out->push_back('\b');
          break;
        case 'f':
          if (out) out->push_back('\f');
          break;
        case 'n':
          if (out) out->push_back('\n');
          break;
        case 'r':
          if (out) out->push_back('\r');
          break;
        case 't':
          if (out) out->push_back('\t');
          break;
        case 'u':
          for (int i = 0; i < 4; ++i, ++p_)
            if (p_ >= end_ || !std::isxdigit(static_cast<unsigned char>(*p_))) return false;
          if (plain) *plain = false;
          break;
        default: return false;
      }
      start = p_;
    }
  }
  template <size_t N>
  bool literal(const char (&word)[N]) {  // the length known here: the comparison is inlined
    constexpr size_t n = N - 1;
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }
  // A number: its value and whether it is written as an integer.
  bool number(double* value, bool* integer) {
    ws();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ >= end_ || !digit(*p_)) return false;
    if (*p_ == '0')
      ++p_;
    else
      p_ = digits_end(p_, end_);
    bool is_int = true;
    if (p_ < end_ && *p_ == '.') {
      is_int = false;
      ++p_;
      if (p_ >= end_ || !digit(*p_)) return false;
      p_ = digits_end(p_, end_);
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      is_int = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || !digit(*p_)) return false;
      p_ = digits_end(p_, end_);
    }
    if (integer) *integer = is_int;
    // Out of range (rare): strtod's answer, as the full parser's (infinity, or zero on underflow).
    if (value && std::from_chars(start, p_, *value).ec != std::errc())
      *value = std::strtod(std::string(start, p_).c_str(), nullptr);
    return true;
  }
  // Skips any value; returns its type (none on a syntax error).
  Type skip(int depth = 0) {
    if (depth > 256) return Type::none;
    switch (peek()) {
      case '"': return string(nullptr) ? Type::string : Type::none;
      case '{': {
        ++p_;
        if (eat('}')) return Type::object;
        do {
          if (!string(nullptr) || !eat(':') || skip(depth + 1) == Type::none) return Type::none;
        } while (eat(','));
        return eat('}') ? Type::object : Type::none;
      }
      case '[': {
        ++p_;
        if (eat(']')) return Type::array;
        do {
          if (skip(depth + 1) == Type::none) return Type::none;
        } while (eat(','));
        return eat(']') ? Type::array : Type::none;
      }
      case 't': return literal("true") ? Type::boolean : Type::none;
      case 'f': return literal("false") ? Type::boolean : Type::none;
      case 'n': return literal("null") ? Type::null : Type::none;
      default: {
        bool is_int = false;
        return number(nullptr, &is_int) ? (is_int ? Type::integer : Type::number) : Type::none;
      }
    }
  }
  // Walks an object's members: `member(key)` reads the value itself (returns false on an error) or returns
  // true after skip(). Returns false on a syntax error.
  template <class F>
  bool object(F&& member) {
    if (!eat('{')) return false;
    if (eat('}')) return true;
    std::string key;
    do {
      key.clear();
      bool plain = true;
      if (!string(&key, &plain) || !plain || !eat(':')) return false;
      if (!member(key)) return false;
    } while (eat(','));
    return eat('}');
  }

 private:
  const char* p_;
  const char* end_;
};

// Reads a value of the expected kind; `present` false for null. False on a syntax or type error.
bool read_string(Scanner& s, std::string& out, bool& present) {
  if (s.peek() == 'n') {
    present = false;
    return s.skip() == Type::null;
  }
  bool plain = true;
  present = true;
  out.clear();
  return s.string(&out, &plain) && plain;
}
bool read_int(Scanner& s, int64_t& out) {
  if (s.peek() == 'n') return s.skip() == Type::null;
  double v = 0;
  bool is_int = false;
  if (!s.number(&v, &is_int) || !is_int) return false;
  out = static_cast<int64_t>(v);
  return true;
}
bool read_number(Scanner& s, double& out) {
  if (s.peek() == 'n') return s.skip() == Type::null;
  bool is_int = false;
  return s.number(&out, &is_int);
}
// A value that must be of `type` (or null) to be a valid record.
bool skip_typed(Scanner& s, Type want) {
  const Type t = s.skip();
  if (t == Type::none) return false;
  if (t == Type::null) return true;
  if (want == Type::number) return t == Type::number || t == Type::integer;
  return t == want;
}
// A value that must be of the type the record's owner gives its field (record_fields.h).
bool skip_typed(Scanner& s, FieldType want) {
  switch (want) {
    case FieldType::string: return skip_typed(s, Type::string);
    case FieldType::integer: return skip_typed(s, Type::integer);
    case FieldType::number: return skip_typed(s, Type::number);
    case FieldType::boolean: return skip_typed(s, Type::boolean);
    case FieldType::object: return skip_typed(s, Type::object);
    case FieldType::array: return skip_typed(s, Type::array);
  }
  return false;
}

}  // namespace

RecordSummary RecordSummary::of(const Record& r) {
  RecordSummary s;
  s.kind = r.kind;
  s.key = r.key();
  s.turn = r.turn;
  s.cost_usd = r.cost_usd;
  s.tokens = r.usage.total();
  s.correct = r.correct();
  s.claimed_correct = r.claimed_correct();
  s.recorded_at = r.recorded_at;
  s.provider = r.provider;
  s.model = r.model;
  s.candidate_format = r.candidate_format;
  s.category = r.problem.category;
  if (r.verdict) s.verdict = r.verdict->kind;
  s.error_kind = r.error ? r.error->kind : "";
  s.speedup = r.speedup();
  return s;
}

std::optional<RecordSummary> summarize_line(std::string_view line) {
  namespace rf = record_field;
  Scanner s(line);
  RecordSummary out;
  std::string kind_text;
  bool have_kind = false, have_config = false, have_problem_name = false;
  std::optional<bool> verdict_correct;
  std::optional<std::string> verdict_name;
  bool verdict_object = false;
  bool present = false;
  int64_t number = 0;
  auto read_count = [&](int& to) {
    number = 0;
    if (!read_int(s, number)) return false;
    to = static_cast<int>(number);
    return true;
  };
  const bool ok = s.object([&](std::string_view key) -> bool {
    if (key == rf::schema.key) {
      number = 0;
      return read_int(s, number) && number <= kSchema;
    }
    if (key == rf::kind.key) return read_string(s, kind_text, have_kind);
    if (key == rf::config.key) return read_string(s, out.key.config, have_config);
    if (key == rf::sample.key) return read_count(out.key.sample);
    if (key == rf::turn.key) return read_count(out.turn);
    if (key == rf::cost_usd.key) return read_number(s, out.cost_usd);
    if (key == rf::provider.key) return read_string(s, out.provider, present);
    if (key == rf::model.key) return read_string(s, out.model, present);
    if (key == rf::candidate_format.key) return read_string(s, out.candidate_format, present);
    if (key == rf::recorded_at.key) return read_string(s, out.recorded_at, present);
    if (key == rf::problem.key) {
      if (s.peek() != '{') return false;  // required, and an object
      return s.object([&](std::string_view k) -> bool {
        if (k == problem_field::name.key) return read_string(s, out.key.problem, have_problem_name);
        if (k == problem_field::category.key) return read_string(s, out.category, present);
        if (auto type = field_type(kProblemFields, k)) return skip_typed(s, *type);
        return s.skip() != Type::none;
      });
    }
    if (key == rf::usage.key) {
      if (s.peek() == 'n') return s.skip() == Type::null;
      if (s.peek() != '{') return false;
      TokenUsage usage;
      const bool read = s.object([&](std::string_view k) -> bool {
        for (const auto& count : kTokenCounts)
          if (k == count.key) return read_int(s, usage.*count.member);
        if (k == kReasoningSourceKey) return skip_typed(s, FieldType::string);
        return s.skip() != Type::none;
      });
      out.tokens = usage.total();
      return read;
    }
    if (key == rf::verdict.key) {
      if (s.peek() == 'n') return s.skip() == Type::null;
      if (s.peek() != '{') return false;
      verdict_object = true;
      // The verdict's own fields (verdict/verdict.h) read here are read as eval::Verdict::from_json reads them:
      // a value of another type is absent, and the kind follows the owner's rule (recorded_kind).
      return s.object([&](std::string_view k) -> bool {
        if (k == "verdict" && s.peek() == '"') {
          std::string name;
          if (!read_string(s, name, present)) return false;
          verdict_name = std::move(name);
          return true;
        }
        if (k == "speedup") {
          const char c = s.peek();
          if (c == '-' || (c >= '0' && c <= '9')) {
            double v = 0;
            bool is_int = false;
            if (!s.number(&v, &is_int)) return false;
            out.speedup = v;
            return true;
          }
          return s.skip() != Type::none;
        }
        if (k == "correct" && (s.peek() == 't' || s.peek() == 'f')) {
          const bool v = s.peek() == 't';
          if (s.skip() != Type::boolean) return false;
          verdict_correct = v;
          return true;
        }
        return s.skip() != Type::none;
      });
    }
    if (key == rf::claim.key) {
      if (s.peek() == 'n') return s.skip() == Type::null;
      if (s.peek() != '{') return false;
      return s.object([&](std::string_view k) -> bool {
        if (k == claim_field::correct.key) return skip_typed(s, claim_field::correct.type);
        return s.skip() != Type::none;
      });
    }
    if (key == rf::error.key) {
      if (s.peek() == 'n') return s.skip() == Type::null;
      if (s.peek() != '{') return false;
      return s.object([&](std::string_view k) -> bool {
        if (k == error_field::kind.key) return read_string(s, out.error_kind, present);
        return s.skip() != Type::none;
      });
    }
    // The other fields the record type reads: their types, so that a line the full parser rejects is not
    // vouched for here.
    if (auto type = field_type(kRecordFields, key)) return skip_typed(s, *type);
    return s.skip() != Type::none;
  });
  if (!ok || !s.at_end() || !have_kind || !have_config || !have_problem_name) return std::nullopt;
  auto kind = parse_kind(kind_text);
  if (!kind) return std::nullopt;
  out.kind = *kind;
  if (out.kind == Kind::imported) return std::nullopt;  // rare; the full parser checks its required parts
  if (verdict_object) out.verdict = eval::recorded_kind(verdict_name, verdict_correct);
  out.correct = out.kind == Kind::evaluation && out.verdict == eval::VerdictKind::correct;
  out.claimed_correct = false;
  return out;
}

std::optional<Record> verdict_of_line(std::string_view line) {
  namespace rf = record_field;
  Scanner s(line);
  Record out;
  std::string kind_text;
  bool have_kind = false, present = false;
  int64_t number = 0;
  std::string_view verdict;
  const bool ok = s.object([&](std::string_view key) -> bool {
    if (key == rf::kind.key) return read_string(s, kind_text, have_kind);
    if (key == rf::config.key) return read_string(s, out.config, present);
    if (key == rf::sample.key || key == rf::turn.key) {
      number = 0;
      if (!read_int(s, number)) return false;
      (key == rf::sample.key ? out.sample : out.turn) = static_cast<int>(number);
      return true;
    }
    if (key == rf::problem.key) {
      if (s.peek() != '{') return false;
      return s.object([&](std::string_view k) -> bool {
        if (k == problem_field::name.key) return read_string(s, out.problem.name, present);
        if (k == problem_field::file_hash.key) return read_string(s, out.problem.file_hash, present);
        return s.skip() != Type::none;
      });
    }
    if (key == rf::verdict.key) {
      if (s.peek() != '{') return s.skip() != Type::none;
      const char* start = s.position();
      if (s.skip() != Type::object) return false;
      verdict = std::string_view(start, static_cast<size_t>(s.position() - start));
      return true;
    }
    return s.skip() != Type::none;
  });
  if (!ok || !s.at_end() || !have_kind) return std::nullopt;
  auto kind = parse_kind(kind_text);
  if (!kind) return std::nullopt;
  out.kind = *kind;
  if (!verdict.empty()) {
    auto parsed = nlohmann::json::parse(verdict, nullptr, false);
    if (parsed.is_discarded()) return std::nullopt;
    out.verdict = eval::Verdict::from_json(parsed);
  }
  return out;
}

}  // namespace kf::corpus
