#pragma once
// When to stop timing: a noise criterion after nvbench's (stop once the measurement is precise enough,
// within a time budget), applied alike to the candidate and the baseline. Samples are per-call times of
// whole rounds (a round's trusted wall time / its calls).
#include <string>
#include <vector>

#include "verdict/checks.h"

namespace kf::eval {

struct TimingPolicyOptions {
  int warmup_rounds = 1;  // discarded
  int min_rounds = 10;
  int max_rounds = 200;
  double budget_ms = 2000;    // measured time after which timing stops whatever the noise
  double max_noise = 0.004;   // target relative standard error of the median
  double wall_budget_ms = 0;  // wall time (from the first round) after which timing stops; 0: 2 x budget_ms
};

class TimingPolicy {
 public:
  explicit TimingPolicy(TimingPolicyOptions options);
  // One round: its trusted wall time and number of calls.
  void add(double round_ms, int calls);
  bool done() const;
  bool warming_up() const { return seen_ < options_.warmup_rounds; }
  double median_ms() const;  // per call
  // Relative standard error of the median, distribution-free: half the distance between the samples ranked
  // ceil(sqrt(n) / 2) below and above the median, / the median.
  double noise() const;
  double measured_ms() const { return measured_; }
  int rounds() const { return static_cast<int>(samples_.size()); }
  int calls() const { return calls_; }
  const std::string& stop_reason() const { return stop_; }  // noise | budget | wall_budget | max_rounds | ""
  TimingSummary summary() const;  // median/p10/p90/min/max per call, rounds, calls, noise, stop reason

 private:
  double quantile(double q) const;
  std::string compute_stop() const;
  std::string stop_;
  TimingPolicyOptions options_;
  std::vector<double> samples_;  // per call, after warm-up
  int seen_ = 0;
  int calls_ = 0;
  double measured_ = 0;
  double first_s_ = -1;  // steady clock at the first round
};

}  // namespace kf::eval
