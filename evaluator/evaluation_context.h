#pragma once
// Everything that lives for one candidate's evaluation and no longer: the verdict being built, the job folder,
// the runner and what the judge knows about it, the trials' and timing's results. Created by
// Evaluator::Impl::evaluate (evaluator/phases/phase_list.cpp) for one evaluation and handed through its phases
// (evaluator/phases/); what outlives an evaluation (the oracle, options, caches, device facts) stays on the
// evaluator (evaluator_impl.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "evaluator/evaluator_impl.h"

namespace kf::eval {

// The evaluation's private folder on the tmpfs: when the session ends, the oracle's buffers for it are
// released and the folder removed (after the runner is gone: the session's members end in reverse order).
struct JobFolder {
  std::string dir;                // "" until setup made it
  std::function<void()> release;  // the oracle's buffers
  JobFolder() = default;
  JobFolder(const JobFolder&) = delete;
  JobFolder& operator=(const JobFolder&) = delete;
  ~JobFolder();
};

struct EvaluationContext {
  EvaluationContext(const std::string& problem, const std::string& problem_key, const Compiled& compiled);
  EvaluationContext(const EvaluationContext&) = delete;
  EvaluationContext& operator=(const EvaluationContext&) = delete;

  // What is evaluated.
  const std::string problem;
  const std::string problem_key;  // the evaluator's caches' key for it (Evaluator::Impl::problem_key)
  const Compiled& compiled;
  const bool kernelbench;  // a kernelbench solution, run by the python runner

  // The verdict being built; the judge finishes it (phases/judgement.cpp).
  Verdict verdict;
  const double started_s;
  // Records checks.phases_s[name]: the time since the previous phase ended (or the evaluation started).
  void phase_done(const std::string& name);

  // Setup's results: the loaded problem (the oracle's description), the job folder (first: it ends last), the
  // runner's launch, the trials' seeds, the timing plan.
  nlohmann::json loaded_problem;
  JobFolder job;
  std::optional<RunnerLaunch> launch;
  // The first trial's seed and every seed the evaluation prepares (the oracle sizes buffers for them all).
  uint64_t seed = 0;
  nlohmann::json seeds = nlohmann::json::array();
  std::optional<TimingPlan> plan;  // only when the candidate is timed
  bool varying_shapes = false;     // the problem's shapes depend on the seed (trial records show them)

  // The runner and what the judge needs to know about it.
  RunnerSession runner;
  bool loaded = false;        // the candidate library is being or has been loaded
  bool runner_ready = false;  // the runner loaded the candidate and said it is ready
  double call_limit_s = kCallLimitFloorS;
  std::string call_limit_text;
  std::set<std::string> vendors_seen;
  bool freeze_failed = false;  // the runner could not be stopped between rounds at least once
  // The harness's own cost of one round (thaw, command, answer, the GPU's switch from the oracle's work to
  // the runner's), measured before the candidate was loaded and taken off every timed round.
  double round_overhead_ms = 0;
  nlohmann::json calibration_log;   // the calibration rounds behind it
  int64_t custom_kernel_calls = 0;  // as the runner counted them (evidence against the candidate only)
  int helpers_ended = 0;            // processes the solution started, killed before a round (Triton's JIT)
  double first_round_limit_s = 0;   // the next round's limit, when larger than its calls' (then reset)
  int64_t record_bytes = 0;         // > 0: the next round records its extension calls (replay_attribution.cpp)

  // The trials' state.
  std::set<std::string> base_degenerate;  // "output:trivial" pairs that pass on their own on trial 0
  // The last prepared trial's tensor shapes (sent with every runner command: they may change between
  // trials) and the bytes its inputs and outputs occupy.
  nlohmann::json trial_shapes;
  int64_t trial_bytes = 0;
  int64_t timed_trial_bytes = 0;  // the trial's bytes before the timing: the bandwidth floor's
  bool recorded = false;          // the attribution trial recorded the extension calls for a replay

  // The replayer of a kernelbench solution the static check cannot attribute (replay_attribution.cpp);
  // last: it ends before the runner and the job folder.
  std::unique_ptr<Replayer> replayer;

 private:
  double phase_mark_s_;  // when the previous phase ended
};

}  // namespace kf::eval
