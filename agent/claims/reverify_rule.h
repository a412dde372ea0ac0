#pragma once
// The "verified speedup" rule, shared by `kforge report` and `kforge reverify` (docs/campaigns.md): a
// correct kernel's speedup is verified when its measured interval (from the recorded timing spread of
// candidate and baseline) lies above 1.0 and, where `kforge reverify` re-judged that kernel, the claim
// held there. Everything else that is faster than the baseline is "faster than baseline (unverified)".
#include <optional>
#include <string>

#include "agent/claims/reverify_results.h"
#include "core/result.h"
#include "corpus/record.h"

namespace kf::agent {

// Speedup interval from the timing spread in a verdict's checks (p10/p90 of candidate and baseline):
// [baseline p10 / candidate p90, baseline p90 / candidate p10]. nullopt without those figures.
std::optional<SpeedupInterval> speedup_interval(const eval::Verdict& verdict);

// A speedup as recorded: the figure and, where the timing spread is known, its interval.
struct SpeedupFigure {
  double value = 0;
  std::optional<SpeedupInterval> interval;
};

// The one rule for "a measurement supports a claimed speedup", for kernels of a campaign and for imported
// solutions alike: the claimed interval (a claim without a spread: its figure) overlaps the measured
// interval (without a measured spread: the two figures are within 10% of each other), or claim and
// measurement lie entirely on the same side of 1.0 (both faster than the baseline, or both slower).
bool speedup_supported(const SpeedupFigure& claimed, const SpeedupFigure& measured);

// A verdict's speedup with its interval; nullopt when the verdict has no speedup.
std::optional<SpeedupFigure> speedup_figure(const eval::Verdict& verdict);

// Whether a KernelBench solution's kernels replace only part of the reference's work, PyTorch doing the rest
// (the verdict's flag torch_compute_in_forward, with checks.static.coverage; docs/candidates.md).
bool partial_replacement(const eval::Verdict& verdict);

// Does a re-measurement support a claim? "holds" when still correct and the claimed speedup is supported
// (speedup_supported; a claim or measurement without a speedup: correctness alone); else "not_reproduced"
// or "now_incorrect".
std::string reverify_status(const eval::Verdict& claimed_verdict, const eval::Verdict& new_verdict);

// Why a correct kernel's speedup is or is not verified (first failing condition, in this order).
enum class SpeedupCheck {
  not_faster,       // no speedup recorded, or speedup <= 1.0
  inputs_repeated,  // faster, but the timed rounds repeated their inputs (checks.timing.inputs_repeated): a cache
                    // keyed on the inputs could have answered them
  no_spread,        // faster, but the verdict has no timing spread to compute an interval from
  within_spread,    // faster, but the interval's lower end is <= 1.0
  not_held,         // interval above 1.0, but reverify did not find the claim holding
  partial,          // interval above 1.0, but PyTorch does part of the reference's work beside the solution's kernels
                    // (partial replacement, which KernelBench allows): the speedup is not its kernels' alone
  in_process,       // interval above 1.0, but only the solution's own process says its kernels did the work
  verified,         // interval above 1.0 and (no reverify result, or reverify says "holds")
};
const char* to_string(SpeedupCheck check);

struct SpeedupJudgement {
  SpeedupCheck check = SpeedupCheck::not_faster;
  std::optional<SpeedupInterval> interval;
  std::optional<std::string> reverify_status;  // set when a reverify result covers the kernel
  bool faster() const { return check != SpeedupCheck::not_faster; }
  bool verified() const { return check == SpeedupCheck::verified; }
};

class VerifiedSpeedupRule {
 public:
  VerifiedSpeedupRule() = default;  // no reverify results: the interval decides
  explicit VerifiedSpeedupRule(std::optional<ReverifyResults> reverify) : reverify_(std::move(reverify)) {}
  // The rule for a run folder: with DIR/reverify.json when there is one.
  static Result<VerifiedSpeedupRule> for_folder(const std::string& dir);

  // A corpus record holding a correct verdict.
  SpeedupJudgement judge(const corpus::Record& record) const;
  // A bare verdict with the reverify status that applies to it, if any.
  static SpeedupJudgement judge_verdict(const eval::Verdict& verdict, const std::optional<std::string>& status);

  const std::optional<ReverifyResults>& reverify() const { return reverify_; }

 private:
  std::optional<ReverifyResults> reverify_;
};

}  // namespace kf::agent
