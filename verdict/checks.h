#pragma once
// What an evaluation checked and measured on the way to its verdict: the verdict's "checks" object
// (docs/evaluator.md, "JSON"). Written by the evaluator's phases through these types, read back from corpora and
// results files by everything that reports on them. The one owner of the object's keys: nothing else reads or
// writes `checks` by key. A field is optional where an evaluation may not reach the phase that writes it (or an
// older kforge did not write it); a recorded object's keys this kforge does not know, and known keys of a type
// it does not expect, are kept and written back as they were (`unknown_fields`).
// Parts that are another component's own document (the oracle's input generator and device records, the
// static check's findings, the solution's build log, the runner's logs of rounds) are kept as JSON here.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verdict/kernel_profile.h"

namespace kf::eval {

// One timing's figures per call over its timed rounds, after the warm-up (evaluator/timing_policy.h).
struct TimingSummary {
  std::optional<double> median_ms, p10_ms, p90_ms, min_ms, max_ms;
  std::optional<int> rounds, calls;
  std::optional<double> measured_ms;  // the rounds' summed time
  std::optional<double> noise;        // relative standard error of the median
  std::optional<std::string> stop;    // noise | budget | wall_budget | max_rounds
};

// checks.timing.candidate: the candidate's timed rounds (docs/evaluator.md, "Timing").
struct CandidateRounds {
  TimingSummary summary;
  std::optional<int> calls_per_round, checked_rounds, checked_slots;
  // Per round: [trusted ms before the overhead is taken off, runner events ms, checked, oracle's prepare ms,
  // its check ms]; per calibration round: [trusted ms, runner events ms, bytes the runner's memsets wrote].
  std::optional<nlohmann::json> rounds_log, calibration_log;
  std::optional<double> round_overhead_ms, channel_rtt_ms, channel_share;
  std::optional<double> events_per_call_ms, device_tail_ms;  // cuda only
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// checks.timing.baseline (eager) and checks.timing.baseline_<name> (torch.compile): one baseline's timing.
struct BaselineRounds {
  TimingSummary summary;
  std::optional<bool> cudnn_tf32, copies_outputs;
  std::optional<int> calls_per_round;
  std::optional<nlohmann::json> device_checks;  // the device checks around it (evaluator/device_check.h)
  std::optional<std::string> mode;              // torch.compile's mode; absent for eager
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// checks.timing: the timing plan's facts, the candidate's and the baselines' timings, the bandwidth floor.
struct TimingRecord {
  std::optional<int> slots;
  std::optional<bool> repeatable_inputs, inputs_repeated;
  std::optional<nlohmann::json> repeated_inputs;  // forward arguments that repeat, by name
  std::optional<CandidateRounds> candidate;
  std::optional<CandidateRounds> candidate_events;  // corpora written before the rounds were trusted
  std::map<std::string, BaselineRounds> baselines;  // by baseline name: "eager" is written as "baseline"
  std::optional<std::string> baseline_error;        // why eager has no time
  std::optional<double> copy_bandwidth_gbps, floor_ms;
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// One trivial output (zeros, a passthrough input, ...) against the reference and the candidate.
struct TrivialFigures {
  double rel_l2 = 0;
  double distance = 0;  // to the candidate's output
};

// The precision of an fp32 output against a float64 reference.
struct PrecisionFigures {
  double error = 0, ref_error = 0, ratio = 0;
};

// One output of one trial, as the oracle's comparison measured it. A figure the oracle could not give (it was
// not finite) is written as 1e308, the value the judge gave it.
struct TrialOutput {
  std::string name, dtype;
  double rel_l2 = 0, max_abs = 0, ref_rms = 0;
  int64_t violations = 0, nan_inf_mismatch = 0, unwritten = 0, mismatched_exact = 0;
  double coverage = 1;  // the share of elements written
  std::map<std::string, TrivialFigures> trivial;
  std::optional<PrecisionFigures> precision;
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// One entry of checks.trials: a comparison (a trial, re-validation, a failed check of a timed round) or a trial
// skipped because its inputs make the reference non-finite.
struct TrialRecord {
  int trial = 0;  // -1: a timed round's check
  std::string label;
  std::optional<std::string> skipped;  // why; a skipped trial has none of the fields below
  std::optional<uint64_t> seed;
  std::string variant;
  std::optional<nlohmann::json> shapes;  // for problems whose shapes depend on the seed
  std::vector<TrialOutput> outputs;
  nlohmann::json inputs_modified = nlohmann::json::array();  // the oracle's findings
  std::optional<double> call_ms;  // the trusted time of its one call (its round, with the harness's overhead)
  nlohmann::json unknown_fields = nlohmann::json::object();
};

// checks.static: a kernelbench solution's static check (docs/candidates.md), with what the evaluation adds.
struct StaticChecks {
  nlohmann::json findings;  // the static check's own findings
  std::optional<std::vector<std::string>> reference_ops;
  std::optional<std::map<std::string, int64_t>> reference_units;
  std::optional<nlohmann::json> coverage;  // what PyTorch does of the reference's work, and what the kernels do
  std::optional<std::vector<std::string>> torch_compute;
  std::optional<std::string> reference_ops_error;
};

// checks.replay: the trusted replay of a kernelbench solution's extension calls.
struct ReplayFigures {
  bool trusted = false;
  int calls = 0;
  double seconds = 0;
};

struct Checks {
  std::optional<std::string> candidate;  // a candidate that did not build: its source
  std::optional<std::vector<TrialRecord>> trials;
  std::optional<std::vector<std::string>> degenerate;  // trivial outputs that pass on their own
  std::optional<std::string> precision;
  std::optional<nlohmann::json> tolerances;  // per dtype, as sent to the oracle
  std::optional<bool> reduced_precision_allowed;
  std::optional<StaticChecks> static_check;  // "static"
  std::optional<nlohmann::json> build;       // per extension: cache hit, PCH, seconds
  std::optional<nlohmann::json> input_generator;
  std::optional<uint64_t> seed;  // the first trial's
  std::optional<TimingRecord> timing;
  std::optional<nlohmann::json> device_before;  // the device check before the runner started
  std::optional<double> startup_limit_s, first_call_limit_s, call_limit_s;
  std::optional<std::string> limit_hit;  // lifetime | call
  std::optional<bool> runner_frozen_between_rounds;
  std::optional<int64_t> custom_kernel_calls;
  std::optional<int> helper_processes_ended;
  std::optional<ReplayFigures> replay;
  std::optional<std::string> attribution;        // trusted | in_process
  std::optional<std::string> attribution_basis;  // static | replay
  std::optional<nlohmann::json> attribution_why;
  std::optional<bool> runner_tree_empty;
  std::optional<int64_t> bytes_moved;
  std::optional<std::string> roofline_error;
  std::optional<KernelProfile> profile;      // Nsight Compute's figures, when the trusted side profiled the kernel
  std::optional<std::string> profile_error;  // why profiling it failed (the feedback goes without the figures)
  std::map<std::string, double> phases_s;    // per phase, its seconds; absent when empty
  nlohmann::json unknown_fields = nlohmann::json::object();

  // The parts phases add to, made when absent.
  TimingRecord& timing_record();
  std::vector<TrialRecord>& trial_records();

  nlohmann::json to_json() const;
  // A recorded object, read by type: a field of an unexpected type is kept as it was, in unknown_fields.
  static Checks from_json(const nlohmann::json& j);
};

}  // namespace kf::eval
