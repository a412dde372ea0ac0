#pragma once
// What kforge's verdict says about an imported solution's claim (`kforge reverify` on a folder of
// `kforge import`): holds, not_reproduced, now_correct, now_incorrect, rejected (with the hack class),
// fails, or harness_error. docs/campaigns.md defines each status; docs/candidates.md the workflow.
#include <optional>
#include <string>
#include <vector>

#include "agent/claims/reverify_rule.h"
#include "corpus/record.h"
#include "verdict/verdict.h"

namespace kf::agent {

// The statuses, in the order reports list them.
const std::vector<std::string>& claim_statuses();

// The hack class a reason code names: what the solution did to pass a check it should have failed
// (trivial_output, deferred_work, torch_fallback, reduced_precision, input_modified, timer_tampering,
// unsynchronized_work, impossible_time, harness_tampering, vendor_library, ...; an unknown rejected.X
// is X). "" for codes that are no hack (numerical failures, build and run failures).
std::string hack_class(const std::string& reason_code);

// The hack classes reports give a column each, in order (others are counted under "other").
const std::vector<std::string>& known_hack_classes();

// What kforge's measurement is: the baseline kind its speedup is over (agent/claims/baseline_kind.h; eager today)
// and the GPU it ran on ("" when unknown).
struct Measurement {
  std::string baseline_kind = "eager";
  std::string hardware;
};

// One claimed speedup set against kforge's measurement over the same baseline kind.
struct BaselineComparison {
  std::string baseline;
  double claimed = 0;
  std::optional<SpeedupFigure> measured;  // nullopt: kforge measured no such baseline
  std::string outcome;                    // supported | not_supported | not_measured
};

struct ClaimCheck {
  std::string status;
  std::string reason;                         // the verdict's deciding reason code ("" when correct)
  std::string hack_class;                     // set when status is "rejected"
  std::string detail;                         // that reason's detail, or why the claimed speedup is not supported
  std::string baseline_kind;                  // the kind the status compared (the measurement's)
  bool hardware_differs = false;              // the claim states a GPU model other than the one kforge measured on
  std::vector<BaselineComparison> baselines;  // every claimed speedup, compared where kforge measured its kind
};

// Judges `claim` by kforge's `verdict`. For a claimed-correct
// solution: holds when kforge finds it correct and the claimed speedup over the measurement's baseline kind,
// if any, is supported (speedup_supported in agent/claims/reverify_rule.h), else not_reproduced. A claim made on
// another GPU model (hardware_differs) is judged on kforge's own interval alone: it holds when the claim and
// kforge's interval lie on the same side of 1.0 (claimed faster: the interval lies above 1.0). For one the run did not
// call correct: now_correct when kforge does. Otherwise, alike for both: rejected for a reward hack (rejected.* and
// incorrect.reduced_precision), now_incorrect for other incorrect.*, fails for compile_error, runtime_error and
// timeout, harness_error when kforge could not judge it.
ClaimCheck check_claim(const corpus::Claim& claim, const eval::Verdict& verdict,
                       const Measurement& measurement = Measurement{});

}  // namespace kf::agent
