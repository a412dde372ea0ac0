#pragma once
// Campaign figures per configuration, computed from a corpus (docs/campaigns.md defines each one).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/claims/reverify_rule.h"
#include "agent/report/budget_curves.h"
#include "core/result.h"
#include "corpus/lineage.h"
#include "corpus/reader.h"

namespace kf::agent {

struct CategorySummary {
  int units = 0;
  int correct = 0;
  int faster = 0;    // correct and speedup > 1
  int verified = 0;  // of those, verified speedups (agent/claims/reverify_rule.h)
  std::optional<double> median_speedup;
};

// The spread of a figure over units: how many, the median and the quartiles.
struct Distribution {
  int n = 0;
  std::optional<double> median, p25, p75;
  nlohmann::json to_json() const;
};
Distribution distribution(std::vector<double> values);

// One unit with at least one reply: what its conversation reached (not the loop's UnitOutcome, how a unit ended).
struct UnitReached {
  std::string problem;
  int sample = 0;
  std::string category;
  std::optional<int> first_correct_turn;  // earliest turn with a correct kernel
  std::optional<int> best_turn;           // turn of the best correct kernel (corpus "best")
  std::optional<double> best_speedup;     // its speedup, when timed
  SpeedupJudgement judgement;             // the verified-speedup rule on the best kernel
  // The yardsticks of the best kernel (docs/evaluator.md, "Yardsticks"): its speedup over each baseline timed
  // (eager, compile), its fraction of peak and the resource that bounds it, and each baseline's fraction.
  std::map<std::string, double> speedup_over;
  std::optional<double> peak_fraction;
  std::string bound_by;
  std::map<std::string, double> baseline_peak_fraction;
};

// A problem's best kernel in a configuration (over every sample) and where it came from.
struct ProblemBest {
  std::string problem;
  int sample = 0;
  int turn = 0;
  std::optional<double> speedup;           // absent: correct but untimed
  std::optional<corpus::Lineage> lineage;  // absent: refine (its parent is the previous turn)
};

// Percentages are over units: (problem, sample) pairs that got at least one model reply. With one
// sample per problem a unit is a problem.
struct ConfigSummary {
  std::string run;  // the corpus folder (set by the caller for compare)
  std::string config;
  std::string provider;
  std::string model;
  std::string candidate_format;  // the configuration's (corpus records without one: kf_forward)
  int problems_attempted = 0;    // distinct problems with at least one evaluation
  int units = 0;
  int units_compiled = 0;  // at least one reply compiled (any verdict past compilation)
  int units_correct = 0;
  int units_no_reply = 0;                 // only provider failures, never a reply
  std::map<std::string, int> fast_count;  // "0", "1.0", "1.5", "2.0" -> units
  int faster_unverified = 0;              // best speedup > 1 (= fast_count["1.0"]), verified or not
  int verified_speedups = 0;              // best speedup verified by the rule (agent/claims/reverify_rule.h)
  std::map<std::string, int> unverified;  // faster but not verified, by SpeedupCheck name
  std::string reverify_file;              // the reverify results applied ("" = none found)
  int reverify_covered = 0;               // faster units whose best kernel reverify re-judged
  std::optional<double> median_speedup;   // over units' best correct kernels
  std::optional<double> geomean_speedup;
  std::optional<double> median_speedup_of_wins;  // over units faster than the baseline
  std::map<std::string, CategorySummary> categories;
  // Over units' best kernels: the median speedup over each baseline, the fraction of peak of the kernels and
  // of each baseline on the same problems.
  std::map<std::string, std::optional<double>> median_speedup_over;
  Distribution peak_fraction;
  std::map<std::string, Distribution> baseline_peak_fraction;
  int evaluations = 0;
  int64_t tokens = 0;  // input + output + reasoning, provider failures included
  double cost_usd = 0;
  std::optional<double> tokens_per_problem, cost_per_problem, tokens_per_correct, cost_per_correct;
  std::map<std::string, int> kernel_failures;    // verdict -> count (no_code, compile_error, incorrect, ...)
  std::map<std::string, int> provider_failures;  // error kind -> count
  int harness_failures = 0;
  std::vector<UnitReached> outcomes;  // units with a reply, by (problem, sample)
  // Equal budget (budget_curves.h): the search strategy (loop.strategy, from the records' lineage; records
  // without one are `refine`) and the course of the search on each problem, by problem.
  std::string strategy = "refine";
  std::vector<SearchCourse> searches;
  std::vector<ProblemBest> best_per_problem;  // problems with a correct kernel, by problem
  std::vector<int> correct_by_turn;           // [t-1]: units with a correct kernel at turn t or earlier

  double pct(int n) const { return units == 0 ? 0.0 : 100.0 * n / units; }
  int kernel_failures_total() const;
  int provider_failures_total() const;
  nlohmann::json to_json() const;
};

inline const std::vector<std::string>& fast_thresholds() {
  static const std::vector<std::string> t = {"0", "1.0", "1.5", "2.0"};
  return t;
}

// Folds a corpus into one summary per configuration a record at a time. Per unit it keeps its tallies and the
// place of its best kernel so far (corpus::ranks_above), never a record: memory grows with units, not records.
// finish() reads each unit's best kernel back, one at a time, to judge it on its whole verdict.
class ReportAggregator {
 public:
  // `place`: where finish() can have this record read back (a file place, or any numbering of the caller's).
  void add(const corpus::RecordSummary& record, const corpus::RecordPlace& place);
  // Reads back each unit's best kernel, once, in the order of their places. Only its identity (config, problem,
  // sample, turn) and verdict are used (corpus::RecordReader::verdict_at).
  using Fetch = std::function<Result<corpus::Record>(const corpus::RecordPlace&)>;
  // The summaries, sorted by configuration name. `rule` decides which speedups are verified
  // (VerifiedSpeedupRule::for_folder(dir) applies the folder's reverify results). An error when a best
  // kernel cannot be read back. `whole` reads a record whole (its lineage), for a few records only: each
  // configuration's first evaluation (its strategy) and each problem's best kernel; without it no lineage is
  // read (every configuration reads as `refine`).
  Result<std::vector<ConfigSummary>> finish(const VerifiedSpeedupRule& rule, const Fetch& fetch,
                                            const Fetch& whole = nullptr) const;

 private:
  struct Unit {
    std::string category;
    bool compiled = false;
    bool correct = false;
    bool replied = false;
    std::optional<double> best_speedup;  // the best kernel's (the highest of the unit's correct kernels)
    std::optional<int> first_correct_turn;
    int max_turn = 0;  // the last turn with a reply
    int best_turn = 0;
    std::optional<corpus::RecordPlace> best;
  };
  struct Config {
    ConfigSummary summary;                                // the running totals (names, tokens, cost, failures)
    std::map<std::pair<std::string, int>, Unit> units;    // (problem, sample) -> unit
    std::map<std::string, SearchCourse> searches;         // problem -> its search's course
    std::optional<corpus::RecordPlace> first_evaluation;  // its lineage names the configuration's strategy
  };
  std::map<std::string, Config> configs_;
};

// One summary per configuration of an in-memory corpus (its records fed to a ReportAggregator), sorted by name.
std::vector<ConfigSummary> summarize(const corpus::Corpus& corpus, const VerifiedSpeedupRule& rule = {});

// A run folder's report, streamed (corpus::stream): the campaign summaries and, whole, its imported records
// (for summarize_imports, import_report.h; `imports` holds the files and damage of the folder too). An error
// when the folder holds no corpus or a file cannot be read.
struct FolderReport {
  std::vector<ConfigSummary> summaries;
  corpus::Corpus imports;
};
Result<FolderReport> summarize_folder(const std::string& dir, const VerifiedSpeedupRule& rule);

std::optional<double> median(std::vector<double> values);
std::optional<double> geometric_mean(const std::vector<double>& values);

enum class ReportFormat { md, json, csv };
std::optional<ReportFormat> parse_report_format(const std::string& text);

// The md report's tables, for the md and html formats: the figures table (no heading) and the
// per-category table.
struct ReportTable {
  std::string heading;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
std::vector<ReportTable> report_tables(const std::vector<ConfigSummary>& summaries);
// A table as markdown: "## heading" (when it has one), then the table.
std::string markdown_table(const ReportTable& table);
// A csv field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);
// Categories present in any summary: the known ones in their order, then any others by name.
std::vector<std::string> report_categories(const std::vector<ConfigSummary>& summaries);
// A configuration's column (and series) name: its name, or "run: name" in compare.
std::string column_name(const ConfigSummary& s);
// Sentences stating the verified-speedup rule and which reverify results were applied.
std::vector<std::string> report_notes(const std::vector<ConfigSummary>& summaries);

// The equal-budget tables (budget_curves.h) on each axis with a spend, budgets common to every summary.
std::vector<ReportTable> equal_budget_tables(const std::vector<ConfigSummary>& summaries);
// The same figures as JSON: {axis: {"levels": [...], "configurations": {column name: [AtBudget...]}}}.
nlohmann::json equal_budget_json(const std::vector<ConfigSummary>& summaries);
// Where each problem's best kernel came from (strategy, round, island, parents, inspirations); nullopt when no
// configuration has a correct kernel.
std::optional<ReportTable> lineage_table(const std::vector<ConfigSummary>& summaries);

// `kforge report DIR`: one corpus. `kforge compare DIR...`: the configurations of several corpora side
// by side (the "run" column tells them apart; title "kforge compare"). The html format is report_html.h's;
// with imported solutions, format_with_imports (import_report.h).
std::string format_report(const std::vector<ConfigSummary>& summaries, ReportFormat format, const std::string& title);

}  // namespace kf::agent
