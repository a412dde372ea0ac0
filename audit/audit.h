#pragma once
// `kforge audit`: which trivial outputs (zeros, the reference's mean, an input passed through, a 0.3%
// partial write) a weak correctness check lets through on each problem, compared with kforge's verifier.
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
  std::vector<std::string> problems;    // problem files, in order (see expand_problem_paths)
  int seeds = 3;                        // trials 0 .. seeds-1 (trial 0: the problem's own inputs)
  std::vector<double> tolerances = {1e-2, 1e-4};  // KernelBench allclose atol = rtol
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
  std::string output;   // output0, output1, ...
  std::string dtype;
  std::string trivial;  // zeros | constant | passthrough:<input> | partial_0.3pct
  std::vector<PassCount> allclose;  // one per request tolerance, same order
  PassCount kforge;
  double max_rel_l2 = 0;            // worst relative L2 error of this trivial output over the trials
  int64_t max_mismatched = 0;       // integer / bool outputs: most elements that differ on one trial
  bool floating() const { return dtype.starts_with("float") || dtype.starts_with("bfloat"); }
};

struct ProblemAudit {
  std::string path;
  std::string name;                  // file name without the .py
  std::vector<TrivialRow> rows;
  std::optional<Error> error;        // the problem could not be audited (load / reference failure)
  std::optional<eval::BaselineTiming> baseline;  // its eager baseline, when the request asked for it
  std::optional<Error> baseline_error;          // why the baseline could not be timed
  bool any_allclose_pass(size_t tolerance_index) const;
  bool any_kforge_pass() const;
};

struct AuditReport {
  std::vector<double> tolerances;
  int seeds = 0;
  std::string precision;
  std::string backend;
  std::vector<ProblemAudit> problems;
};

// The statistics source: trivial outputs of one problem on one trial (Evaluator::trivial_stats).
using TrivialSource = std::function<Result<std::vector<eval::TrivialReport>>(
    const std::string& problem_path, int trial, const std::vector<double>& tolerances)>;

// The eager baseline of one problem (Evaluator::time_baseline).
using BaselineSource = std::function<Result<eval::BaselineTiming>(const std::string& problem_path)>;

// Folds one trial's reports into the rows of a problem (rows are matched by output and trivial kind).
void accumulate(ProblemAudit& audit, const std::vector<eval::TrivialReport>& reports,
                const std::vector<double>& tolerances);

// Audits every problem of the request; a problem that fails is recorded with its error and the audit
// goes on. `progress` (may be empty) is told each problem's name before it runs. With a `baseline`
// source, each problem that could be audited also gets its eager baseline timed.
AuditReport run_audit(const AuditRequest& request, const TrivialSource& source,
                      const std::function<void(const std::string&)>& progress,
                      const BaselineSource& baseline = {});

}  // namespace kf::audit
