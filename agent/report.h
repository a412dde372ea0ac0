#pragma once
// Campaign figures per configuration, computed from a corpus (docs/campaigns.md defines each one).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/corpus.h"

namespace kf::agent {

struct CategorySummary {
  int units = 0;
  int correct = 0;
  int faster = 0;  // correct and speedup > 1
  std::optional<double> median_speedup;
};

// Percentages are over units: (problem, sample) pairs that got at least one model reply. With one
// sample per problem a unit is a problem.
struct ConfigSummary {
  std::string run;  // the corpus folder (set by the caller for compare)
  std::string config;
  std::string provider;
  std::string model;
  int problems_attempted = 0;  // distinct problems with at least one evaluation
  int units = 0;
  int units_compiled = 0;      // at least one reply compiled (any verdict past compilation)
  int units_correct = 0;
  int units_no_reply = 0;      // only provider failures, never a reply
  std::map<std::string, int> fast_count;      // "0", "1.0", "1.5", "2.0" -> units
  int verified_speedups = 0;                  // correct and speedup > 1 (= fast_count["1.0"])
  std::optional<double> median_speedup;       // over units' best correct kernels
  std::optional<double> geomean_speedup;
  std::optional<double> median_speedup_of_wins;  // over verified speedups only
  std::map<std::string, CategorySummary> categories;
  int evaluations = 0;
  int64_t tokens = 0;          // input + output + reasoning, provider failures included
  double cost_usd = 0;
  std::optional<double> tokens_per_problem, cost_per_problem, tokens_per_correct, cost_per_correct;
  std::map<std::string, int> kernel_failures;    // verdict -> count (no_code, compile_error, incorrect, ...)
  std::map<std::string, int> provider_failures;  // error kind -> count
  int harness_failures = 0;

  double pct(int n) const { return units == 0 ? 0.0 : 100.0 * n / units; }
  int kernel_failures_total() const;
  int provider_failures_total() const;
  nlohmann::json to_json() const;
};

inline const std::vector<std::string>& fast_thresholds() {
  static const std::vector<std::string> t = {"0", "1.0", "1.5", "2.0"};
  return t;
}

// One summary per configuration found in the corpus, sorted by name.
std::vector<ConfigSummary> summarize(const Corpus& corpus);

std::optional<double> median(std::vector<double> values);
std::optional<double> geometric_mean(const std::vector<double>& values);

enum class ReportFormat { md, json, csv };
std::optional<ReportFormat> parse_report_format(const std::string& text);

// `kforge report DIR`: one corpus. `kforge compare DIR...`: the configurations of several corpora side
// by side (the "run" column tells them apart).
std::string format_report(const std::vector<ConfigSummary>& summaries, ReportFormat format, const std::string& title);
std::string format_compare(const std::vector<ConfigSummary>& summaries, ReportFormat format);

}  // namespace kf::agent
