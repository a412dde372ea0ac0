#include "agent/claims/kernelbench_formats.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/format.h"

namespace kf::agent::kernelbench {
namespace {

using json = nlohmann::json;

// A run of ASCII digits at s[pos...] as a number (at most 9 digits); advances pos.
std::optional<int> digits_at(const std::string& s, size_t& pos) {
  size_t start = pos;
  while (pos < s.size() && pos - start < 10 && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
  if (pos == start || pos - start > 9) return std::nullopt;
  return std::stoi(s.substr(start, pos - start));
}

bool take(const std::string& s, size_t& pos, const std::string& word) {
  if (s.compare(pos, word.size(), word) != 0) return false;
  pos += word.size();
  return true;
}

std::optional<int> whole_number(const std::string& s) {
  size_t pos = 0;
  auto n = digits_at(s, pos);
  return n && pos == s.size() ? n : std::nullopt;
}

// A sample id: an integer, or a string or float holding one.
std::optional<int> lenient_int(const json& v, bool* odd) {
  *odd = false;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    auto x = v.get<int64_t>();
    if (x >= 0 && x < 1000000000) return static_cast<int>(x);
    return std::nullopt;
  }
  *odd = true;
  if (v.is_string()) return whole_number(v.get<std::string>());
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d < 1e9 && d == std::floor(d)) return static_cast<int>(d);
  }
  return std::nullopt;
}

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

// One sample's entry; false when it cannot be used at all.
bool parse_entry(const json& v, int problem, std::optional<int> list_index, const std::string& where, EvalEntry& e,
                 std::string& why) {
  if (!v.is_object()) {
    why = where + ": the entry is not an object (" + shown(v) + ")";
    return false;
  }
  e.problem = problem;
  e.raw = bounded_json(v);
  bool odd = false;
  if (v.contains("sample_id") && !v["sample_id"].is_null()) {
    auto s = lenient_int(v["sample_id"], &odd);
    if (!s) {
      why = where + ": sample_id " + shown(v["sample_id"]) + " is not a sample number";
      return false;
    }
    e.sample = *s;
    if (odd) e.warnings.push_back("sample_id " + shown(v["sample_id"]) + " read as " + std::to_string(*s));
  } else if (list_index) {
    e.sample = *list_index;
    e.warnings.push_back("no sample_id: taken from its place in the list (" + std::to_string(*list_index) + ")");
  }  // the older one-entry-per-problem format names no sample: sample 0

  auto flag = [&](const char* key, std::optional<bool>& out) {
    if (!v.contains(key) || v[key].is_null()) {
      e.warnings.push_back(std::string("no \"") + key + "\": unknown");
      return;
    }
    bool other = false;
    out = lenient_bool(v[key], &other);
    if (!out)
      e.warnings.push_back(std::string("\"") + key + "\" " + shown(v[key]) + " is not a boolean: unknown");
    else if (other)
      e.warnings.push_back(std::string("\"") + key + "\" " + shown(v[key]) + " read as " + (*out ? "true" : "false"));
  };
  flag("compiled", e.compiled);
  flag("correctness", e.correct);

  if (v.contains("runtime") && !v["runtime"].is_null()) {
    bool was_string = false;
    auto r = lenient_number(v["runtime"], &was_string);
    const bool not_measured = r && *r == -1;  // KernelBench's own marker
    if (!r)
      e.warnings.push_back("runtime " + shown(v["runtime"]) + " is not a number: not measured");
    else if (!std::isfinite(*r))
      e.warnings.push_back("runtime is " + shown(v["runtime"]) + ": not measured");
    else if (*r <= 0 && !not_measured)
      e.warnings.push_back("runtime " + format_significant(*r, 6) + " ms is not positive: not measured");
    else if (*r > 0) {
      e.runtime_ms = *r;
      if (was_string) e.warnings.push_back("runtime " + shown(v["runtime"]) + " read as a number");
    }
  } else if (e.correct.value_or(false)) {
    e.warnings.push_back("no runtime for a correct entry: no speedup claimed");
  }
  if (v.contains("metadata") && v["metadata"].is_object()) {
    const auto& m = v["metadata"];
    if (m.contains("hardware") && m["hardware"].is_string()) e.hardware = m["hardware"].get<std::string>();
  }
  return true;
}

}  // namespace

std::optional<SolutionName> parse_solution_name(const std::string& n) {
  size_t pos = 0;
  SolutionName s;
  if (!take(n, pos, "level_")) return std::nullopt;
  auto l = digits_at(n, pos);
  if (!l || !take(n, pos, "_problem_")) return std::nullopt;
  auto p = digits_at(n, pos);
  if (!p || !take(n, pos, "_sample_")) return std::nullopt;
  auto x = digits_at(n, pos);
  if (!x || !take(n, pos, "_kernel.py") || pos != n.size()) return std::nullopt;
  return SolutionName{*l, *p, *x};
}

std::optional<int> problem_number(const std::string& file_name) {
  size_t pos = 0;
  auto n = digits_at(file_name, pos);
  if (!n || pos >= file_name.size() || file_name[pos] != '_') return std::nullopt;
  return n;
}

std::string python_json_to_json(const std::string& text, int* replaced) {
  std::string out;
  out.reserve(text.size());
  int n = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    // A bare word can only start where a value starts: after one of these (or at the start).
    const char prev = out.empty() ? ',' : out.back();
    const bool value_start =
        prev == ',' || prev == ':' || prev == '[' || prev == ' ' || prev == '\n' || prev == '\t' || prev == '\r';
    bool matched = false;
    if (value_start)
      for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
        const std::string w = word;
        if (text.compare(i, w.size(), w) == 0) {
          out += "\"" + w + "\"";
          i += w.size() - 1;
          ++n;
          matched = true;
          break;
        }
      }
    if (!matched) out += c;
  }
  if (replaced) *replaced = n;
  return out;
}

std::optional<double> lenient_number(const json& v, bool* was_string) {
  if (was_string) *was_string = false;
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  if (was_string) *was_string = true;
  const std::string s = v.get<std::string>();
  if (s.empty() || s.size() > 64) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return d;
}

std::optional<bool> lenient_bool(const json& v, bool* was_other) {
  if (was_other) *was_other = false;
  if (v.is_boolean()) return v.get<bool>();
  if (was_other) *was_other = true;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    auto x = v.get<int64_t>();
    if (x == 0 || x == 1) return x == 1;
    return std::nullopt;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "true" || s == "True" || s == "TRUE" || s == "1") return true;
    if (s == "false" || s == "False" || s == "FALSE" || s == "0") return false;
  }
  return std::nullopt;
}

namespace {
json bounded(const json& v, size_t max_string, size_t max_items, int depth) {
  if (depth > 8) return "...";
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() <= max_string) return v;
    return s.substr(0, max_string) + "... (" + std::to_string(s.size() - max_string) + " more characters)";
  }
  if (v.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < v.size() && i < max_items; ++i)
      out.push_back(bounded(v[i], max_string, max_items, depth + 1));
    if (v.size() > max_items) out.push_back("... (" + std::to_string(v.size() - max_items) + " more items)");
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      if (i == max_items) {
        out["..."] = std::to_string(v.size() - max_items) + " more members";
        break;
      }
      std::string key = it.key().size() > max_string ? it.key().substr(0, max_string) : it.key();
      out[key] = bounded(it.value(), max_string, max_items, depth + 1);
    }
    return out;
  }
  return v;
}
}  // namespace

json bounded_json(const json& value, size_t max_string, size_t max_items) {
  return bounded(value, max_string, max_items, 0);
}

Result<EvalResults> parse_eval_results(const std::string& text, const std::string& origin) {
  int replaced = 0;
  auto doc = json::parse(python_json_to_json(text, &replaced), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error("import.eval_results",
                      origin + " is not a JSON object of problem entries (is it KernelBench's eval_results.json?)");
  EvalResults out;
  if (replaced > 0)
    out.warnings.push_back(origin + ": " + std::to_string(replaced) +
                           " bare NaN/Infinity values (Python's json) read as not-a-number strings");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string where_problem = origin + ": problem \"" + it.key() + "\"";
    auto problem = whole_number(it.key());
    if (!problem) {
      out.warnings.push_back(where_problem + ": the key is not a problem number; skipped");
      ++out.unreadable;
      continue;
    }
    auto add = [&](const json& v, std::optional<int> index) {
      EvalEntry e;
      std::string why;
      const std::string where = where_problem + (index ? " entry " + std::to_string(*index) : "");
      if (!parse_entry(v, *problem, index, where, e, why)) {
        out.warnings.push_back(why + "; skipped");
        ++out.unreadable;
        return;
      }
      out.entries.push_back(std::move(e));
    };
    if (it.value().is_array())
      for (size_t i = 0; i < it.value().size(); ++i) add(it.value()[i], static_cast<int>(i));
    else
      add(it.value(), std::nullopt);
  }
  // KernelBench appends a sample's entry again when it is re-evaluated: the last one counts.
  std::map<std::pair<int, int>, size_t> last;
  std::map<std::pair<int, int>, int> seen;
  for (size_t i = 0; i < out.entries.size(); ++i) {
    last[{out.entries[i].problem, out.entries[i].sample}] = i;
    ++seen[{out.entries[i].problem, out.entries[i].sample}];
  }
  std::vector<EvalEntry> kept;
  for (size_t i = 0; i < out.entries.size(); ++i) {
    const std::pair<int, int> key{out.entries[i].problem, out.entries[i].sample};
    if (last[key] != i) continue;
    if (seen[key] > 1)
      out.entries[i].warnings.push_back("recorded " + std::to_string(seen[key]) + " times: the last entry is used");
    kept.push_back(std::move(out.entries[i]));
  }
  out.entries = std::move(kept);
  return out;
}

Result<Baseline> Baseline::parse(const std::string& text, const std::string& origin) {
  int replaced = 0;
  auto doc = json::parse(python_json_to_json(text, &replaced), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error("import.baseline", origin +
                                             " is not a JSON object (expected KernelBench's baseline timing "
                                             "file: {\"level1\": {\"19_ReLU.py\": {\"mean\": ms, ...}}})");
  Baseline b;
  b.origin_ = origin;
  for (auto lv = doc.begin(); lv != doc.end(); ++lv) {
    size_t pos = 0;
    std::optional<int> level;
    if (take(lv.key(), pos, "level")) {
      take(lv.key(), pos, "_");
      level = digits_at(lv.key(), pos);
      if (pos != lv.key().size()) level.reset();
    }
    if (!level || !lv.value().is_object()) {
      b.warnings_.push_back(origin + ": \"" + lv.key() + "\" is not a level<L> object; ignored");
      continue;
    }
    for (auto p = lv.value().begin(); p != lv.value().end(); ++p) {
      const json& e = p.value();
      const json mean = e.is_object() ? e.value("mean", json()) : e;
      bool was_string = false;
      auto m = lenient_number(mean, &was_string);
      if (!m || !std::isfinite(*m) || *m <= 0) {
        b.warnings_.push_back(origin + ": " + lv.key() + "/" + p.key() + ": no usable mean (" + shown(mean) +
                              "); no speedup is claimed for it");
        continue;
      }
      if (was_string || !e.is_object())
        b.warnings_.push_back(origin + ": " + lv.key() + "/" + p.key() + ": mean " + shown(mean) + " read as " +
                              format_significant(*m, 6) + " ms");
      BaselineEntry be{*m, ""};
      if (e.is_object() && e.contains("hardware") && e["hardware"].is_string())
        be.hardware = e["hardware"].get<std::string>();
      b.levels_[*level][p.key()] = be;
    }
  }
  if (b.levels_.empty()) return make_error("import.baseline", origin + " holds no level<L> object with usable means");
  return b;
}

std::optional<BaselineEntry> Baseline::find(int level, const std::string& problem_file, std::string* note) const {
  auto lv = levels_.find(level);
  if (lv == levels_.end()) return std::nullopt;
  if (auto it = lv->second.find(problem_file); it != lv->second.end()) return it->second;
  auto number = problem_number(problem_file);
  if (!number) return std::nullopt;
  const BaselineEntry* found = nullptr;
  std::string found_name;
  for (const auto& [name, e] : lv->second)
    if (problem_number(name) == number) {
      if (found) return std::nullopt;  // ambiguous
      found = &e;
      found_name = name;
    }
  if (!found) return std::nullopt;
  if (note) *note = "baseline entry \"" + found_name + "\" matched to " + problem_file + " by its number";
  return *found;
}

}  // namespace kf::agent::kernelbench
