#pragma once
// `kforge audit`: which trivial outputs (zeros, the reference's mean, an input passed through, a 0.3%
// partial write) a weak correctness check lets through on each problem, compared with kforge's verifier.
// The allclose columns run on KernelBench's own correctness trials (its seeds, the problem's get_inputs());
// the kforge column on kforge's trials and input variants. A problem where a trivial output is itself a
// correct answer is "degenerate" (no check can tell it apart); a check that accepts a wrong one is "fooled".
// The statistics come from the evaluator's oracle (Evaluator::trivial_stats) and the verdict from its
// judge (TrivialReport::judge_passes); this module only runs them over problems and seeds and tabulates.
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/evaluator.h"

namespace kf::audit {

struct AuditRequest {
  std::vector<std::string> problems;              // problem files, in order (see expand_problem_paths)
  int seeds = 3;                                  // kforge trials 0 .. seeds-1 (trial 0: the problem's own inputs)
  int kernelbench_trials = 5;                     // KernelBench's num_correct_trials (its evaluation scripts' default)
  std::vector<double> tolerances = {1e-2, 1e-4};  // KernelBench allclose atol = rtol
  bool compile_baseline = false;                  // with a baseline source: torch.compile's baseline beside eager's
};

// How often one check accepted one trivial output over the trials that ran.
struct PassCount {
  int passed = 0;
  int trials = 0;
  // A correctness check is only satisfied when every trial passes (KernelBench and kforge alike).
  bool passes() const { return trials > 0 && passed == trials; }
};

// One (problem, output, trivial kind) row of the audit.
struct TrivialRow {
  std::string output;  // output0, output1, ...
  std::string dtype;
  std::string trivial;              // zeros | constant | passthrough:<input> | partial_0.3pct
  std::vector<PassCount> allclose;  // one per request tolerance, same order; on KernelBench's trials
  PassCount itself_correct;         // on KernelBench's trials, the trivial output passes kforge's judge on its own
  PassCount kforge;                 // on kforge's trials (the judge's verdict on the trivial output)
  double max_rel_l2 = 0;            // worst relative L2 error of this trivial output over the trials
  int64_t max_mismatched = 0;       // integer / bool outputs: most elements that differ on one trial
  bool floating() const { return dtype.starts_with("float") || dtype.starts_with("bfloat"); }
};

struct ProblemAudit {
  std::string path;
  std::string name;  // file name without the .py
  std::vector<TrivialRow> rows;
  std::optional<Error> error;                            // the problem could not be audited (load / reference failure)
  std::optional<eval::BaselineTiming> baseline;          // its eager baseline, when the request asked for it
  std::optional<Error> baseline_error;                   // why the baseline could not be timed
  std::optional<eval::BaselineTiming> compile_baseline;  // torch.compile's, when the request asked for it
  std::optional<Error> compile_baseline_error;
  // The evaluator that audited it (`--gpus`): {"slot", "gpu_index", "gpu_name", "gpu_uuid"}; null if not set.
  nlohmann::json evaluator;
  bool any_allclose_pass(size_t tolerance_index) const;
  bool any_kforge_pass() const;
  // Some trivial output that passes allclose at this tolerance is itself a correct answer.
  bool degenerate_for_allclose(size_t tolerance_index) const;
  // allclose at this tolerance accepts a trivial output and the problem is not degenerate there.
  bool fooled_allclose(size_t tolerance_index) const;
  // kforge's verifier only admits a trivial output that its judge finds correct on its own, so a problem where
  // one passes the kforge column is degenerate by kforge's standard (the judge flags degenerate_problem and
  // still rejects candidates equal to it); the kforge column is never "fooled" in this sense.
};

struct AuditReport {
  std::vector<double> tolerances;
  int seeds = 0;
  int kernelbench_trials = 0;
  std::string precision;
  std::string backend;
  std::vector<ProblemAudit> problems;
};

// Whose trials: KernelBench's correctness trials (Evaluator::kernelbench_trivial_stats) or kforge's
// (Evaluator::trivial_stats).
enum class TrialSet { kernelbench, kforge };

// The statistics source: trivial outputs of one problem on one trial of one trial set.
using TrivialSource = std::function<Result<std::vector<eval::TrivialReport>>(
    const std::string& problem_path, TrialSet set, int trial, const std::vector<double>& tolerances)>;

// One baseline of one problem, "eager" or "compile" (Evaluator::time_baseline).
using BaselineSource =
    std::function<Result<eval::BaselineTiming>(const std::string& problem_path, const std::string& which)>;

// Folds one trial's reports into the rows of a problem (rows are matched by output and trivial kind): a
// KernelBench trial counts for the allclose columns and itself_correct, a kforge trial for the kforge column.
void accumulate(ProblemAudit& audit, const std::vector<eval::TrivialReport>& reports,
                const std::vector<double>& tolerances, TrialSet set);

// Audits every problem of the request; a problem that fails is recorded with its error and the audit
// goes on. `progress` (may be empty) is told each problem's name before it runs. With a `baseline`
// source, each problem that could be audited also gets its eager baseline timed, and torch.compile's when the
// request's compile_baseline is set.
AuditReport run_audit(const AuditRequest& request, const TrivialSource& source,
                      const std::function<void(const std::string&)>& progress, const BaselineSource& baseline = {});

}  // namespace kf::audit
