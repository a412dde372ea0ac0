#include "agent/claims/reference_drift.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>

namespace kf::agent {
namespace {

constexpr size_t kSummaryChars = 300;
constexpr size_t kLineChars = 70;

std::string collapse(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// `line` without a trailing `#` comment (a `#` inside a string literal stays).
std::string strip_comment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

}  // namespace

std::vector<NormalisedLine> normalise_problem_source(const std::string& source) {
  std::vector<NormalisedLine> out;
  std::istringstream in(source);
  std::string raw, docstring_end, current_class, section = "module";
  while (std::getline(in, raw)) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (!docstring_end.empty()) {
      if (raw.find(docstring_end) != std::string::npos) docstring_end.clear();
      continue;
    }
    const size_t indent = raw.find_first_not_of(" \t");
    if (indent == std::string::npos) continue;
    const std::string body = raw.substr(indent);
    // A string statement on its own line is a docstring (or dead text): dropped.
    for (const char* q : {"\"\"\"", "'''"}) {
      std::string rest = body;
      for (const char* prefix : {"r", "R", "u", "U"})
        if (rest.rfind(prefix, 0) == 0 && rest.compare(1, 3, q) == 0) rest = rest.substr(1);
      if (rest.rfind(q, 0) == 0) {
        if (rest.find(q, 3) == std::string::npos) docstring_end = q;
        goto next_line;
      }
    }
    {
      std::string text = collapse(strip_comment(body));
      if (text.empty()) continue;
      static const std::regex super_call(R"(super\(\s*\w+\s*,\s*self\s*\)\.__init__)");
      text = std::regex_replace(text, super_call, "super().__init__");
      static const std::regex def(R"(^(async )?def (\w+))"), cls(R"(^class (\w+))");
      std::smatch m;
      if (std::regex_search(text, m, cls)) {
        current_class = m[1];
        section = current_class;
      } else if (std::regex_search(text, m, def)) {
        section = m[2];
        if (indent == 0) current_class.clear();
      } else if (indent == 0) {
        section = "module";
        current_class.clear();
      }
      out.push_back({text, section});
    }
  next_line:;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> module_constants(const std::vector<NormalisedLine>& lines) {
  static const std::regex assign(R"(^([A-Za-z_]\w*) ?= ?([^=].*)$)");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& l : lines) {
    std::smatch m;
    if (l.section == "module" && std::regex_match(l.text, m, assign)) out.emplace_back(m[1], m[2]);
  }
  return out;
}

ReferenceComparison compare_references(const std::string& claimed, const std::string& current) {
  const auto a = normalise_problem_source(claimed), b = normalise_problem_source(current);
  ReferenceComparison r;
  // Longest common subsequence of lines (problems are tens to a few hundred lines).
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i].text == b[j].text ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  r.changed_lines = static_cast<int>(n + m) - 2 * lcs[0][0];
  r.differs = r.changed_lines > 0;
  if (!r.differs) return r;

  std::vector<std::string> parts;
  // Constants first: they decide the shapes get_inputs produces.
  std::map<std::string, std::string> before, after;
  for (const auto& [k, v] : module_constants(a)) before[k] = v;
  for (const auto& [k, v] : module_constants(b)) after[k] = v;
  std::string constants;
  for (const auto& [k, v] : before) {
    auto it = after.find(k);
    const std::string now = it == after.end() ? "(gone)" : it->second;
    if (now != v) constants += (constants.empty() ? "" : ", ") + k + " " + clip(v, 24) + " -> " + clip(now, 24);
  }
  for (const auto& [k, v] : after)
    if (!before.count(k)) constants += (constants.empty() ? "" : ", ") + k + " (new) " + clip(v, 24);
  if (!constants.empty()) parts.push_back("constants: " + constants);
  bool computation = false, inputs = false, init = false;

  // Then the changed lines, walking the two sides along the LCS: one example per section.
  std::map<std::string, std::pair<std::string, std::string>> by_section;
  std::vector<std::string> order;
  auto note = [&](const std::string& section, const std::string* old_line, const std::string* new_line) {
    if (section == "module") return;  // constants are summarised above; other module lines rarely matter
    if (section == "get_inputs")
      inputs = true;
    else if (section == "get_init_inputs")
      init = true;
    else
      computation = true;
    auto [it, fresh] = by_section.try_emplace(section);
    if (fresh) order.push_back(section);
    if (old_line && it->second.first.empty()) it->second.first = *old_line;
    if (new_line && it->second.second.empty()) it->second.second = *new_line;
  };
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i].text == b[j].text) {
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      note(b[j].section, nullptr, &b[j].text);
      ++j;
    } else {
      note(a[i].section, &a[i].text, nullptr);
      ++i;
    }
  }
  for (const auto& section : order) {
    const auto& [old_line, new_line] = by_section[section];
    std::string part = section + ": ";
    if (!old_line.empty() && !new_line.empty()) {
      // Long lines that differ late are shown from shortly before their first difference.
      size_t common = 0;
      while (common < old_line.size() && common < new_line.size() && old_line[common] == new_line[common]) ++common;
      const size_t from = common > kLineChars / 2 ? common - kLineChars / 4 : 0;
      const std::string lead = from > 0 ? "..." : "";
      part += "`" + lead + clip(old_line.substr(from), kLineChars) + "` -> `" + lead +
              clip(new_line.substr(from), kLineChars) + "`";
    } else if (!old_line.empty())
      part += "`" + clip(old_line, kLineChars) + "` removed";
    else
      part += "`" + clip(new_line, kLineChars) + "` added";
    parts.push_back(part);
  }
  if (parts.empty()) parts.push_back("module-level lines differ");
  if (computation) r.changes.push_back("computation");
  if (!constants.empty()) r.changes.push_back("sizes");
  if (inputs) r.changes.push_back("inputs");
  if (init) r.changes.push_back("init");
  std::string summary;
  for (const auto& c : r.changes) summary += (summary.empty() ? "" : ", ") + c;
  summary += (summary.empty() ? "" : ": ") + std::to_string(r.changed_lines) + " lines differ; ";
  for (size_t k = 0; k < parts.size(); ++k) summary += (k ? "; " : "") + parts[k];
  r.summary = clip(summary, kSummaryChars);
  return r;
}

}  // namespace kf::agent
