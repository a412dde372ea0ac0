#pragma once
// DIR/reverify.json, the results of `kforge reverify DIR` (docs/campaigns.md): the one type that writes and
// reads it. `kforge reverify` fills a ReverifyDocument; `kforge report` and the import summary read it back
// through ReverifyResults. Files written before this type existed have the same keys and read the same.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "corpus/record.h"
#include "verdict/verdict.h"

namespace kf::agent {

// `kforge reverify DIR` always writes its results here, so reports of DIR can find them.
inline constexpr const char* kReverifyFile = "reverify.json";

struct SpeedupInterval {
  double low = 0;
  double high = 0;
};

// The claim over one baseline against kforge's measurement of that baseline.
struct ReverifiedBaseline {
  std::string baseline;
  double claimed = 0;
  std::optional<double> measured;  // nullopt: kforge measured no such baseline
  std::optional<SpeedupInterval> interval;
  std::string outcome;  // supported | not_supported | not_measured
};

// An imported solution judged against the reference its release shipped (reference_differs).
struct ClaimedReferenceCheck {
  std::string status, detail;
  bool judged = false;  // false: the reference was missing (status source_missing, detail why)
  std::string reason, hack_class;
  std::optional<eval::Verdict> verdict;  // that judgement
  std::optional<double> speedup;
  std::optional<SpeedupInterval> interval;
};

// One kernel's re-judgement: a campaign kernel, or an imported solution (`imported`).
struct ReverifyEntry {
  bool imported = false;
  std::string config;
  corpus::ProblemRef problem;
  int sample = 0, turn = 0;
  // holds | not_reproduced | now_incorrect | harness_error | problem_changed | source_missing, and for imported
  // solutions the claim check's statuses (rejected, ...)
  std::string status;
  std::string detail;  // why it was not judged; an imported solution's claim check's detail
  std::optional<double> claimed_speedup;
  // Set when the stored source was judged afresh:
  std::optional<eval::Verdict> verdict;           // the fresh judgement; absent when not judged
  std::optional<corpus::EvaluatorRef> evaluator;  // the evaluator that judged it
  std::optional<double> speedup;
  std::optional<SpeedupInterval> interval;
  // Campaign kernels:
  bool best = false;
  std::string speedup_check;  // agent/claims/reverify_rule.h's SpeedupCheck of the claim
  std::optional<SpeedupInterval> claimed_interval;
  // Imported solutions:
  std::string run;
  int level = 0, problem_number = 0;
  corpus::Claim claimed;  // written as Claim::restated_json
  bool reference_differs = false;
  std::string reference_summary;  // set when reference_differs
  std::string task_quality;
  std::string reason, hack_class, baseline_kind;  // set when judged
  bool hardware_differs = false;
  std::vector<ReverifiedBaseline> baselines;
  std::optional<ClaimedReferenceCheck> claimed_reference;

  bool judged() const { return verdict.has_value(); }
  nlohmann::json to_json() const;
  // nullopt when `j` lacks what identifies a kernel (config, problem.name, sample, turn, status).
  static std::optional<ReverifyEntry> from_json(const nlohmann::json& j);
};

struct ReverifyDocument {
  std::string corpus;   // the run folder re-verified
  nlohmann::json seed;  // a number; kept as written
  std::string backend;
  int holds = 0, not_holding = 0, claimed_faster = 0, verified_speedups = 0;
  std::string recorded_at;
  // Set when the run stopped before judging every selected kernel (--time-limit, a signal): how many it did not
  // judge; `kforge reverify DIR --resume` judges them.
  std::optional<size_t> not_judged;
  std::vector<ReverifyEntry> kernels;
  struct ImportedSummary {
    size_t solutions = 0;
    bool all = false;
    std::map<std::string, int> by_status, rejected_by_class;
  };
  std::optional<ImportedSummary> imported;
  nlohmann::json environment;  // the evaluator's environment block; null when unknown
  std::vector<corpus::EvaluatorRef> evaluators;

  nlohmann::json to_json() const;
  // The file's text: indented JSON and a final newline.
  std::string text() const;
  // Replaces DIR/reverify.json (and `also`, another file, unless ""); the path of DIR's file.
  Result<std::string> write(const std::string& dir, const std::string& also = "") const;
  // Entries that do not identify a kernel are skipped; an error when there is no "kernels" array.
  static Result<ReverifyDocument> parse(const nlohmann::json& doc, const std::string& origin);
  // DIR/reverify.json: nullopt when the folder has none; an error when it exists but is unreadable.
  static Result<std::optional<ReverifyDocument>> load(const std::string& dir);
};

// The statuses a `kforge reverify` run wrote, by kernel: (configuration, problem, sample, turn).
class ReverifyResults {
 public:
  // DIR/reverify.json: nullopt when the folder has none; an error when it exists but is unreadable.
  static Result<std::optional<ReverifyResults>> load(const std::string& dir);
  static Result<ReverifyResults> parse(const nlohmann::json& doc, const std::string& origin);
  ReverifyResults(ReverifyDocument doc, std::string origin);

  // The status recorded for the kernel of this corpus record, if reverify judged it (and the problem
  // file's hash is the one the record names).
  std::optional<std::string> status_of(const corpus::Record& record) const;
  // The whole entry reverify wrote for that kernel; nullptr when none applies.
  const ReverifyEntry* entry_of(const corpus::Record& record) const;
  size_t size() const { return by_kernel_.size(); }
  const std::string& origin() const { return origin_; }
  const nlohmann::json& seed() const { return doc_.seed; }

 private:
  using Key = std::tuple<std::string, std::string, int, int>;
  ReverifyDocument doc_;
  std::map<Key, size_t> by_kernel_;  // index into doc_.kernels (the last entry of a kernel wins)
  std::string origin_;
};

}  // namespace kf::agent
