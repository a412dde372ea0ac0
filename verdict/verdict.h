#pragma once
// The verdict of one evaluation, from the judge that decides it to the corpus that records it and the reports,
// feedback and re-verification that read it back (docs/evaluator.md lists verdicts and reason codes; "JSON" its
// form). The one owner of the verdict's JSON: everything else reads the typed fields and the summaries below.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verdict/checks.h"
#include "verdict/roofline.h"
#include "verdict/verdict_kind.h"

namespace kf::eval {

struct Reason {
  std::string code;    // stable, e.g. "incorrect.rel_l2" (docs/evaluator.md lists them)
  std::string detail;  // figures and where
};

// One baseline's timing against a correct candidate (docs/evaluator.md, "Yardsticks").
struct BaselineTime {
  std::optional<double> time_ms, speedup;  // speedup: the baseline's time / the candidate's
  std::string error;                       // why there is no time (torch.compile failed, ...); "" otherwise
  double compile_s = 0;                    // torch.compile's own time (outside the timed rounds); 0 for eager
  bool compile_cached = false;             // compiled by an earlier evaluation of the problem
  std::optional<PeakFraction> peak;        // its time against the roofline
};

// The roofline of the evaluated problem on this device.
struct Roofline {
  std::vector<nlohmann::json> shapes;  // per trial shape: input and output shapes, flops, other_flops, bytes
  Work work;                           // per timed call: the mean over the shapes
  DevicePeaks peaks;
  std::string error;  // why the work could not be counted; "" otherwise
};

// One timing's spread over the timed rounds (checks.timing.<who>): the 10th and 90th percentiles per call.
struct TimingSpread {
  double p10_ms = 0, p90_ms = 0;
};

// What code reads of checks.timing: the spreads a speedup's interval is computed from, and whether the timed
// rounds could draw fresh inputs. Absent parts were not measured (or the verdict predates them).
struct TimingChecks {
  std::optional<TimingSpread> candidate;         // the trusted rounds ("candidate_events" in older corpora)
  std::optional<TimingSpread> baseline;          // eager PyTorch
  std::optional<TimingSpread> baseline_compile;  // torch.compile
  bool inputs_repeated = false;                  // timing.inputs_repeated: a speedup on repeated inputs
  // The primary baseline's spread: torch.compile's when `baseline` names it, eager's otherwise.
  const std::optional<TimingSpread>& primary_baseline(const std::string& baseline) const;
};

struct Verdict {
  std::string problem;
  std::string backend;
  std::string candidate_kind = "kf_forward";  // kf_forward | kernelbench (docs/candidates.md)
  VerdictKind kind = VerdictKind::harness_error;
  std::vector<Reason> reasons;
  Checks checks;  // per-trial error figures, coverage, timing details (verdict/checks.h)
  // ref_time_ms and speedup are the primary baseline's (`baseline`): fast_p and "verified" use them.
  std::optional<double> time_ms, ref_time_ms, speedup;
  std::string baseline = "eager";                 // eager | compile | compile-max-autotune
  std::map<std::string, BaselineTime> baselines;  // every baseline timed, by name
  std::optional<Roofline> roofline;
  std::optional<PeakFraction> peak;  // the candidate's time against the roofline
  std::vector<std::string> flags;    // e.g. "degenerate_problem", "suspicious_speedup", "cache_hit"
  double compile_s = 0;
  double eval_s = 0;
  std::string compiler_output;  // capped, first errors intact
  // A verdict read from a file is written back key for key (reverify.json keeps what older kforge wrote):
  // the fields it had (`recorded_fields`, empty for a verdict made here: all are written), the name of a kind
  // this kforge does not know, and the fields of a later version (`unknown_fields`).
  std::vector<std::string> recorded_fields;
  std::string recorded_name;
  nlohmann::json unknown_fields = nlohmann::json::object();

  bool correct() const { return kind == VerdictKind::correct; }
  // The kind's name; for a recorded kind this kforge does not know, the name as recorded.
  std::string name() const;

  // What a record without a verdict reads as: kind unknown, nothing measured.
  static const Verdict& none();

  // The verdict recorded for a model reply that yielded no source: kind no_code, one reason
  // "no_code.<failure>" with `message` as its detail.
  static Verdict no_code(const std::string& failure, const std::string& message);

  nlohmann::json to_json() const;
  // A recorded verdict, read by type: a corpus or results file is text anyone could have edited, so a field of
  // the wrong type reads as absent, and the kind follows recorded_kind (verdict_kind.h). Verdicts recorded before the
  // yardsticks existed read as eager-only: their ref_time_ms and speedup become baselines.eager's.
  static Verdict from_json(const nlohmann::json& j);

  // What code reads of `checks`, typed (see TimingChecks), and checks.attribution: "trusted" or "in_process"
  // for KernelBench solutions (docs/candidates.md, "Attribution"), "" otherwise.
  TimingChecks timing_checks() const;
  std::string attribution() const;
  // The reason that decided the verdict: the first whose code is the kind's name or starts with it and a dot;
  // the first reason when none does; nullopt without reasons.
  std::optional<Reason> deciding_reason() const;

  // Makes `name` the primary baseline: ref_time_ms and speedup from baselines.<name>. One without a time keeps
  // the evaluator's primary and gains the flag "primary_baseline_unavailable". A campaign whose configurations
  // name different primaries shares one evaluator and chooses per configuration here.
  void choose_primary_baseline(const std::string& name);
  // Exit code of `kforge eval`: 0 correct, 1 other candidate verdicts, 3 harness_error.
  int exit_code() const;
};

}  // namespace kf::eval
