#include "verdict/ncu_csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <vector>

namespace kf::eval {
namespace {

// Bounds on what is read: a profile of a few launches is a few hundred rows.
constexpr size_t kMaxText = size_t{64} << 20;
constexpr size_t kMaxLaunches = 4096;
constexpr size_t kMaxKernelName = 160;

// One CSV line in ncu's dialect: every field quoted, "" an escaped quote. nullopt for a line that is not a
// complete row (program output, an unterminated quote).
std::optional<std::vector<std::string>> split_row(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field += line[i++];
      }
      if (!closed) return std::nullopt;
    } else {
      while (i < line.size() && line[i] != ',') field += line[i++];
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    if (line[i] != ',') return std::nullopt;
    ++i;  // a trailing comma (ncu 2025 writes one) gives one empty last field
  }
  return fields;
}

// ncu's number: digits with an optional decimal point, thousands grouped by commas ("1,215,000,000.00").
// Anything else ("n/a", a locale's "65,77", text) is no number.
std::optional<double> parse_number(std::string_view s) {
  std::string plain;
  size_t digits_since_comma = 0;
  bool seen_comma = false, seen_point = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ',') {
      if (seen_point || (seen_comma && digits_since_comma != 3) || plain.empty() || plain == "-") return std::nullopt;
      seen_comma = true;
      digits_since_comma = 0;
      continue;
    }
    if (c == '.') {
      if (seen_point || (seen_comma && digits_since_comma != 3)) return std::nullopt;
      seen_point = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits_since_comma;
    } else if (!(c == '-' && i == 0)) {
      return std::nullopt;
    }
    plain += c;
  }
  if (seen_comma && !seen_point && digits_since_comma != 3) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(plain.data(), plain.data() + plain.size(), v);
  if (ec != std::errc() || end != plain.data() + plain.size() || plain.empty()) return std::nullopt;
  return v;
}

std::optional<double> nanoseconds(double v, std::string_view unit) {
  if (unit == "ns" || unit == "nsecond" || unit == "nanosecond") return v;
  if (unit == "us" || unit == "usecond" || unit == "microsecond") return v * 1e3;
  if (unit == "ms" || unit == "msecond" || unit == "millisecond") return v * 1e6;
  if (unit == "s" || unit == "second") return v * 1e9;
  return std::nullopt;
}

// A kernel name is the candidate's symbol: printable ASCII only, capped.
std::string printable_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (out.size() == kMaxKernelName) return out + "...";
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

// A percentage ncu reports against a peak: a figure outside [0, 100] (with rounding slack) is not one.
std::optional<double> percent(std::optional<double> v, std::string_view unit) {
  if (!v || unit != "%" || *v < 0 || *v > 101) return std::nullopt;
  return v;
}

struct Launch {
  std::string kernel;
  std::optional<double> duration_ns, memory, compute, occupancy;
  // Stall metrics by family (the metric name without its reason: one family holds comparable figures).
  std::map<std::string, std::map<std::string, double>> stalls;
};

// ncu's names for the figures, as sections print them (2020-2025 releases) and as raw metric names.
bool is_memory(std::string_view m) {
  return m == "Memory Throughput" || m == "Memory [%]" ||
         m == "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
}
bool is_compute(std::string_view m) {
  return m == "Compute (SM) Throughput" || m == "Compute (SM) [%]" || m == "SM [%]" ||
         m == "sm__throughput.avg.pct_of_peak_sustained_elapsed";
}
bool is_occupancy(std::string_view m) {
  return m == "Achieved Occupancy" || m == "sm__warps_active.avg.pct_of_peak_sustained_active";
}
bool is_duration(std::string_view m) { return m == "Duration" || m == "gpu__time_duration.sum"; }

// smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio -> (family, long_scoreboard).
std::optional<std::pair<std::string, std::string>> stall_metric(std::string_view m) {
  constexpr std::string_view infix = "issue_stalled_";
  const size_t at = m.find(infix);
  if (at == std::string_view::npos || m.find("not_issued") != std::string_view::npos) return std::nullopt;
  const size_t start = at + infix.size();
  size_t end = m.find("_per_", start);
  end = std::min(end, m.find('.', start));
  if (end == std::string_view::npos) end = m.size();
  if (end <= start) return std::nullopt;
  std::string family = std::string(m.substr(0, start)) + "*" + std::string(m.substr(end));
  return std::make_pair(std::move(family), std::string(m.substr(start, end - start)));
}

}  // namespace

std::optional<KernelProfile> parse_ncu_csv(std::string_view text) {
  if (text.size() > kMaxText) text = text.substr(0, kMaxText);
  std::map<std::string, size_t> column;
  std::vector<std::string> order;  // launch ids in the order seen
  std::map<std::string, Launch> launches;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() != '"') continue;  // the program's output, ==PROF== lines
    auto fields = split_row(line);
    if (!fields) continue;
    if ((*fields)[0] == "ID") {  // a header (ncu prints one per process)
      column.clear();
      for (size_t i = 0; i < fields->size(); ++i) column.emplace((*fields)[i], i);
      continue;
    }
    auto col = [&](const char* name) -> const std::string* {
      auto it = column.find(name);
      return it == column.end() || it->second >= fields->size() ? nullptr : &(*fields)[it->second];
    };
    const std::string *metric = col("Metric Name"), *unit = col("Metric Unit"), *value = col("Metric Value");
    if (!metric || !unit || !value || metric->empty()) continue;  // no header yet, a rule's row, a short row
    const std::string* pid = col("Process ID");
    const std::string key = (pid ? *pid : "") + "/" + (*fields)[0];
    auto it = launches.find(key);
    if (it == launches.end()) {
      if (launches.size() == kMaxLaunches) continue;
      it = launches.emplace(key, Launch{}).first;
      order.push_back(key);
      if (const std::string* name = col("Kernel Name")) it->second.kernel = printable_name(*name);
    }
    Launch& l = it->second;
    const auto v = parse_number(*value);
    if (is_memory(*metric)) {
      if (auto p = percent(v, *unit)) l.memory = p;
    } else if (is_compute(*metric)) {
      if (auto p = percent(v, *unit)) l.compute = p;
    } else if (is_occupancy(*metric)) {
      if (auto p = percent(v, *unit)) l.occupancy = p;
    } else if (is_duration(*metric)) {
      if (v && *v >= 0) l.duration_ns = nanoseconds(*v, *unit);
    } else if (auto stall = stall_metric(*metric); stall && v && *v >= 0) {
      l.stalls[stall->first][stall->second] = *v;
    }
  }
  if (order.empty()) return std::nullopt;

  const Launch* chosen = &launches.at(order.front());
  for (const auto& key : order) {
    const Launch& l = launches.at(key);
    if (l.duration_ns && (!chosen->duration_ns || *l.duration_ns > *chosen->duration_ns)) chosen = &l;
  }
  KernelProfile p;
  p.kernel = chosen->kernel;
  p.launches = static_cast<int>(order.size());
  p.duration_ns = chosen->duration_ns;
  p.memory_throughput_pct = chosen->memory;
  p.compute_throughput_pct = chosen->compute;
  p.achieved_occupancy_pct = chosen->occupancy;
  // The family with the most reasons (ncu reports one family per request); shares of its total.
  const std::map<std::string, double>* family = nullptr;
  for (const auto& [name, reasons] : chosen->stalls)
    if (!family || reasons.size() > family->size()) family = &reasons;
  if (family) {
    double total = 0;
    for (const auto& [reason, v] : *family) total += v;
    std::vector<StallShare> shares;
    if (total > 0)
      for (const auto& [reason, v] : *family)
        if (v > 0) shares.push_back({reason, v / total});
    std::stable_sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.share > b.share; });
    if (shares.size() > KernelProfile::kTopStalls) shares.resize(KernelProfile::kTopStalls);
    p.top_stalls = std::move(shares);
  }
  if (!p.has_figures()) return std::nullopt;
  return p;
}

}  // namespace kf::eval
