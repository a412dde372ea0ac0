#pragma once
// The verdict of one evaluation (docs/evaluator.md lists verdicts and reason codes).
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "evaluator/roofline.h"

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
  std::string error;                   // why the work could not be counted; "" otherwise
};

struct Verdict {
  std::string problem;
  std::string backend;
  std::string candidate_kind = "kf_forward";  // kf_forward | kernelbench (docs/candidates.md)
  std::string verdict = "harness_error";  // correct|incorrect|compile_error|runtime_error|timeout|rejected|harness_error
  bool correct = false;
  std::vector<Reason> reasons;
  nlohmann::json checks = nlohmann::json::object();  // per-trial error figures, coverage, timing details
  // ref_time_ms and speedup are the primary baseline's (`baseline`): fast_p and "verified" use them.
  std::optional<double> time_ms, ref_time_ms, speedup;
  std::string baseline = "eager";                 // eager | compile | compile-max-autotune
  std::map<std::string, BaselineTime> baselines;  // every baseline timed, by name
  std::optional<Roofline> roofline;
  std::optional<PeakFraction> peak;               // the candidate's time against the roofline
  std::vector<std::string> flags;  // e.g. "degenerate_problem", "suspicious_speedup", "cache_hit"
  double compile_s = 0;
  double eval_s = 0;
  std::string compiler_output;     // capped, first errors intact

  nlohmann::json to_json() const;
  // The timings and yardsticks of a verdict's JSON (time_ms, ref_time_ms, speedup, baseline, baselines,
  // roofline, peak); other fields keep their defaults. Verdicts recorded before the yardsticks existed read as
  // eager-only: their ref_time_ms and speedup become baselines.eager's.
  static Verdict yardsticks_from_json(const nlohmann::json& j);
  // The verdict's JSON with `name` as its primary baseline: ref_time_ms and speedup from baselines.<name>; one
  // without a time keeps the evaluator's primary and gains the flag "primary_baseline_unavailable". A campaign
  // whose configurations name different primaries shares one evaluator and chooses per configuration here.
  static nlohmann::json with_primary_baseline(nlohmann::json verdict, const std::string& name);
  // Exit code of `kforge eval`: 0 correct, 1 other candidate verdicts, 3 harness_error.
  int exit_code() const;
};

}  // namespace kf::eval
