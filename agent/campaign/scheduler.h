#pragma once
// The unit scheduler of a campaign: which units this invocation runs (its shard's share, minus those
// finished in the folder), and the workers that run them: per configuration enough threads that its
// model calls (up to max_concurrent) overlap with compiles and evaluations of its other units.
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "agent/campaign/loop.h"
#include "corpus/shard.h"
#include "corpus/summary.h"

namespace kf::agent {

struct UnitPlan {
  int total_units = 0;                      // this shard's units
  int already_done = 0;                     // of those, finished in an earlier session
  int already_correct = 0;                  // of those, with a correct kernel
  std::vector<std::deque<UnitJob>> queues;  // per configuration, in (problem, sample) order
};

// What earlier sessions recorded of a folder's units, fed record by record as the corpus streams by: the
// records of units still open (to resume them) and, of finished units, only whether they found a correct
// kernel. Memory grows with units (and an open unit's turns), not with the records of finished ones.
struct PriorUnits {
  std::map<UnitKey, std::vector<corpus::Record>> open;  // filled by finish()
  std::map<UnitKey, bool> finished;                     // -> a correct kernel was found
  // A record as its summary and line; only the lines of units not (yet) finished are kept.
  void add(const corpus::RecordSummary& summary, std::string_view line);
  // Parses the kept lines of the units still open into `open`.
  Status finish();

 private:
  std::map<UnitKey, std::vector<std::string>> open_lines_;
  std::map<UnitKey, bool> open_correct_;
};

// For every configuration c (0 .. samples.size()-1), problem p and sample s < samples[c] that `shard` owns:
// counted as done when `prior` has it finished, else queued as make_job(c, p, s) (with the unit's prior
// records).
UnitPlan plan_units(const std::vector<std::string>& config_names, const std::vector<int>& samples,
                    const std::vector<std::string>& problem_names, const corpus::Shard& shard, PriorUnits& prior,
                    const std::function<UnitJob(size_t config, size_t problem, int sample)>& make_job);

struct SchedulerResult {
  int provider_failed_units = 0;
  int harness_failed_units = 0;
  int stopped_units = 0;
  bool fatal = false;  // a unit could not write to the corpus (logged)
};

// Runs every queued unit; `workers[c]` threads for configuration c.
SchedulerResult run_units(std::vector<std::deque<UnitJob>>& queues, const std::vector<int>& workers);

}  // namespace kf::agent
