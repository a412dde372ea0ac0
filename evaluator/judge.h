#pragma once
// The judge: every verdict decision of an evaluation. Statistics come from the oracle and events from
// nowhere trusted; thresholds, reason codes and the final verdict are decided here (docs/evaluator.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evaluator/runner_session.h"
#include "verdict/verdict.h"

namespace kf::eval {

// Error statistics of one output against the reference (computed by the oracle where the data lives).
struct OutputStats {
  int64_t numel = 0;
  bool shape_match = true;
  bool dtype_match = true;
  bool floating = true;
  double rel_l2 = 0;  // ||out-ref||_2 / ||ref||_2 over finite reference positions
  double max_abs = 0;
  double ref_rms = 0;
  int64_t violations = 0;                 // elements outside atol_scale*rms(ref) + rtol*|ref|
  std::vector<int64_t> first_violations;  // flat indices (at most a few)
  int64_t nan_inf_mismatch = 0;           // positions where non-finiteness (NaN / +Inf / -Inf) differs
  int64_t unwritten = 0;                  // elements still equal to the poison pattern
  int64_t mismatched_exact = 0;           // integer/bool outputs: elements that differ
  std::vector<int64_t> first_unwritten;
};

// Dtype-derived acceptance constants (docs/evaluator.md explains the choice).
struct Tolerance {
  double rel_l2;                // relative L2 error bound
  double rtol;                  // per-element relative part
  double atol_scale;            // per-element absolute part, times rms(ref)
  double trivial_margin = 100;  // candidate error must be this many times below each trivial output's
};
Tolerance tolerance_for(const std::string& dtype);

// The judge's decision for one output on one trial. Empty when the output is acceptable on its own.
std::vector<Reason> judge_output(const std::string& where, const std::string& dtype, const OutputStats& stats);
// One trivial output's statistics against the reference, and its distance to the candidate's output
// (||out - trivial||_2 / ||ref||_2; for integer outputs the number of differing elements).
struct TrivialStats {
  std::string name;  // zeros | constant | passthrough:<input name> | partial_0.3pct
  OutputStats stats;
  double distance_to_candidate = -1;
};
// Non-triviality: a candidate must not equal a trivial output and its rel_l2 must be `trivial_margin`
// times below each trivial output's. Returns rejected.trivial_output reasons; `degenerate` receives the
// names of trivial outputs that pass the judge on their own (the problem cannot tell them apart).
std::vector<Reason> judge_non_trivial(const std::string& where, const std::string& dtype, const OutputStats& candidate,
                                      const std::vector<TrivialStats>& trivial, std::vector<std::string>* degenerate);
// Would this trivial output's statistics pass the judge on their own (the audit's "degenerate" test)?
bool trivial_passes(const std::string& dtype, const OutputStats& stats);

// The final verdict from the reasons collected (rejected.* before incorrect.*). The one rule
// that finishes every evaluation's verdict (evaluator/phases/judgement.cpp).
void finalize(Verdict& v);
// The verdict finalize would give `v` now, leaving it as it is (a phase that runs only for a candidate correct
// so far asks this).
VerdictKind judged_verdict(const Verdict& v);
// The verdict a compile-time finding earns when it alone decides (a KernelBench solution's static check and
// build): rejected.*, compile_error.* and incorrect.* their own kind, usage.* and harness.* harness_error,
// anything else compile_error.
VerdictKind verdict_for_compile_reason(const std::string& code);
// A failure of the harness (the oracle, the job folder, the runner before the candidate loaded, the device):
// never a verdict on the candidate.
void judge_harness_failure(Verdict& v, Reason reason);

// A runner that failed (its error reply, a crash, a timeout, or a protocol violation) as a verdict.
// `during` names the phase; `limit` says which time limit applied (for timeouts). Only failures the
// runner reported before loading the candidate may be harness errors: after that, everything the
// runner says is the candidate's.
void judge_runner_failure(Verdict& v, const RunnerEnd& e, bool candidate_loaded, const std::string& during,
                          const std::string& limit);

// The trusted time per call against the runner's own CUDA events (a diagnostic the candidate controls):
// events above it are impossible for an honest runner (a tampered clock). Events below it prove nothing
// (work on the host side of a call, e.g. allocations, is not on the stream and is rightly timed).
std::optional<Reason> judge_event_disagreement(double trusted_ms, double events_ms);

// The median time the device stayed busy after the given stream had finished (the runner's report, believed
// only against the candidate): GPU work that escaped the stream, a race for any caller that waits on it. Allowed:
// 0.1 ms or 5% of the median round (`median_round_ms`, the candidate's calls of one round), whichever is more.
std::optional<Reason> judge_device_tail(double median_tail_ms, double median_round_ms);

// Precision on the problem's own inputs (fp32 outputs, every checked trial): the candidate's relative L2 error
// against a float64 reference on the same inputs, beside the float32 reference's own error against it. The
// ratio error / max(reference's error, floor) may be at most kPrecisionRatioBound. Measured on level-1 problems
// (docs/evaluator.md, "Precision"): float32 kernels with other summation orders 0.0-6.3 (6.3: one sequential
// chain of 65536 terms), TF32/fp16 operands 15-68 at K <= 512 but 1.0-5.9 at K >= 4096 on all-positive inputs
// (there no bound tells them from honest sequential sums; the zero-mean precision trial does), fp16/bf16
// arithmetic 250-3,400.
struct PrecisionStats {
  double error = 0;      // ||out - ref64|| / ||ref64||
  double ref_error = 0;  // ||ref32 - ref64|| / ||ref64||
};
inline constexpr double kPrecisionRatioBound = 8;
// About 17 float32 ulps: an output the float32 reference computes exactly (ReLU) still allows an honest kernel
// a few roundings of its own.
inline constexpr double kPrecisionFloor = 1e-6;
double precision_ratio(const PrecisionStats& p);
// incorrect.reduced_precision when the ratio is above the bound.
std::optional<Reason> judge_precision(const std::string& where, const PrecisionStats& p);

// A median below bytes moved / copy bandwidth (with a margin) is physically implausible.
std::optional<Reason> judge_bandwidth_floor(double time_ms, int64_t bytes, double gbps, double* floor_ms);

}  // namespace kf::eval
