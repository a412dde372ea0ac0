#pragma once
// The evaluator's library API: compile a candidate (thread-safe, CPU only) and evaluate it against a
// KernelBench-format problem (one evaluation at a time per Evaluator, i.e. per GPU). See
// docs/evaluator.md for verdicts, reason codes, tolerances and the JSON schema.
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/judge.h"
#include "evaluator/signature.h"
#include "verdict/kernel_profile.h"
#include "verdict/verdict.h"

namespace kf::eval {

enum class Backend { cuda, host };
std::string to_string(Backend backend);
Result<Backend> parse_backend(const std::string& text);  // "cuda" | "host"

// What a candidate file is (docs/candidates.md): a library with kforge's kf_forward ABI (.cu on cuda, .cpp on
// host) or a KernelBench solution (.py: class ModelNew built with load_inline or Triton), chosen by extension.
enum class CandidateKind { kf_forward, kernelbench };
std::string to_string(CandidateKind kind);  // "kf_forward" | "kernelbench"
CandidateKind candidate_kind_of(const std::string& source_path);

struct EvaluatorOptions {
  Backend backend = Backend::cuda;
  std::string python;              // oracle interpreter; empty: kf::default_python()
  std::string precision = "fp32";  // fp32 | fp16 | bf16
  int trials = 3;                  // correctness trials before timing (minimum 3)
  // Seed of the first trial (trial k uses seed + k). Unset: drawn per evaluation by the trusted side from the
  // OS's entropy, so that no trial is recognisable by its inputs; recorded as checks.seed for an exact rerun.
  std::optional<uint64_t> seed;
  bool allow_vendor_libs = false;  // cuBLAS, cuDNN, ... allowed in candidates
  std::string work_root;           // per-evaluation private dirs; empty: /dev/shm (else $TMPDIR)
  std::string cache_dir;           // compile cache; empty: $XDG_CACHE_HOME/kforge or ~/.cache/kforge
  std::string cuda_home;           // toolkit root; empty: $CUDA_HOME, else /usr/local/cuda
  std::string gpu_arch;            // e.g. "sm_90a"; empty: detect (nvidia-smi compute_cap)
  // The GPU(s) this evaluator's oracle and runners see (CUDA_VISIBLE_DEVICES, e.g. "2" or a GPU UUID);
  // empty: inherited from kforge's environment. One evaluator per GPU pins each one (EvaluatorPool).
  std::string cuda_visible_devices;
  std::string runner_path;  // empty: $KFORGE_RUNNER, else kforge-runner beside the running binary
  // How far the cuda runner is isolated (docs/sandbox.md): full | shared-pid | none.
  // Empty: $KFORGE_CUDA_RUNNER_ISOLATION, else the default there.
  std::string cuda_runner_isolation;
  double compile_timeout_s = 300;
  double runner_timeout_s = 120;  // whole runner lifetime for one evaluation
  double oracle_timeout_s = 600;  // one oracle request (loading a big problem may take a while)
  // Trusted timing (docs/evaluator.md, "Timing"): rounds of calls over distinct buffer slots, timed by the
  // supervisor's clock; a round's calls = slots, sized from the baseline's time so that a round lasts about
  // round_target_ms (memory permitting). Timing stops once the median's relative standard error is at most
  // max_noise (after min_rounds), or when timing_budget_ms of measured time or max_rounds are used up.
  int warmup_rounds = 1;
  int min_rounds = 10;
  int max_rounds = 100;
  double timing_budget_ms = 2000;
  // 0.4%, below nvbench's 0.5%: five evaluations' medians of a 3 ms kernel should agree within 1%, and the
  // calibrated round overhead that is taken off varies by itself too (docs/evaluator.md, "Timing").
  double max_noise = 0.004;
  // 20 ms: the harness's own cost per round (~0.25 ms, taken off by calibration) jumps by 0.15-0.2 ms in some
  // rounds and in some evaluations most of them; at 5 ms rounds that moved a 0.35 ms kernel's median by 3.7%
  // in one of five evaluations on the H200 (docs/evaluator.md, "Timing").
  double round_target_ms = 20;
  double check_fraction = 0.5;  // share of timed rounds whose outputs are checked (chosen after each round)
  // A checked slot's outputs are compared in full up to this many elements, larger ones at this many random
  // positions drawn after the round (every element of every slot is still scanned for poison).
  int64_t round_check_sample = int64_t{1} << 22;
  double suspicious_speedup = 10;  // flag "suspicious_speedup" above this ratio
  // fp32 problems: a trial with zero-mean full-mantissa inputs catches TF32/fp16/bf16 operand rounding
  // (incorrect.reduced_precision); allowed, its failure is only flagged ("reduced_precision").
  bool allow_reduced_precision = false;
  bool measure_baseline = true;
  // The yardsticks (docs/evaluator.md, "Yardsticks"). `baseline`: the primary one (its speedup is the verdict's
  // `speedup`, which fast_p and "verified" use): eager | compile. `compile_baseline`: also time torch.compile of
  // the reference (on | off | auto: on on cuda, off on the host, where inductor's g++ builds take minutes a
  // problem); a compile primary turns it on. `compile_mode`: torch.compile's mode, default | max-autotune.
  std::string baseline = "eager";
  std::string compile_baseline = "auto";
  std::string compile_mode = "default";
  // Fraction of peak: the roofline's work and the device's peaks are measured for every correct candidate.
  bool roofline = true;
  // Time the eager baseline with cuDNN TF32 allowed (torch's default, KernelBench's conditions) instead
  // of with TF32 off like the reference. For comparisons with figures measured under torch defaults only:
  // candidates must meet fp32 accuracy, so the default baseline is held to it too.
  bool baseline_cudnn_tf32 = false;
  bool time_candidate = true;  // false: correctness only
  // kernelbench solutions: build torch/extension.h's precompiled header once and compile main.cpp with it
  // (docs/candidates.md, "The build"). KFORGE_KERNELBENCH_PCH=0 turns it off too.
  bool kernelbench_pch = true;
};

// A load_inline extension of a kernelbench solution, built by kforge (docs/candidates.md, "The build").
struct BuiltExtension {
  std::string name;     // the module name given to load_inline
  std::string key;      // sha256 of the call's arguments (evaluator/kernelbench/extension_call.py)
  std::string library;  // the built module, in the compile cache
};

// Result of compile(): a loadable library or a terminal verdict (compile_error / rejected / harness_error).
struct Compiled {
  CandidateKind kind = CandidateKind::kf_forward;
  std::string source_path;
  // Set when ok(): the library (kf_forward), or the checked copy of the solution in the cache (kernelbench).
  std::string library_path;
  std::vector<BuiltExtension> extensions;  // kernelbench: its load_inline extensions, built
  nlohmann::json static_findings;          // kernelbench: the static check's findings (checks.static)
  nlohmann::json build_log;                // kernelbench: per extension: cache hit, PCH, seconds (checks.build)
  bool cache_hit = false;
  double compile_s = 0;
  std::string compiler_output;
  std::optional<Verdict> failure;  // set when compilation did not produce an acceptable library
  bool ok() const { return !failure.has_value(); }
};

struct EnvironmentInfo {
  std::string backend;
  std::string gpu_name;  // empty on host
  std::string gpu_arch;  // e.g. "sm_90a"
  std::string torch_version;
  std::string cuda_version;  // torch.version.cuda
  std::string python;
  std::optional<double> copy_bandwidth_gbps;  // device copy bandwidth (read + write), cuda only
  nlohmann::json to_json() const;
};

// For the audit helper: statistics of trivial outputs against the reference of one trial.
struct TrivialReport {
  std::string output;  // "output0", ...
  std::string dtype;
  std::string trivial;  // zeros | constant | passthrough:<input name> | partial_0.3pct
  OutputStats stats;
  bool judge_passes = false;                      // trivial_passes(dtype, stats)
  std::vector<std::pair<double, bool>> allclose;  // (tolerance t, torch.allclose(out, ref, atol=t, rtol=t))
};

// The PyTorch eager baseline of a problem, timed as `evaluate` times it (warm-up, L2 flush, median).
struct BaselineTiming {
  double median_ms = 0;  // per call
  double p10_ms = 0;
  double p90_ms = 0;
  int calls = 0;
  int rounds = 0;
  double noise = 0;      // relative standard error of the median
  double compile_s = 0;  // torch.compile: how long compiling the model took (outside every timed round)
  // The median against the roofline (docs/evaluator.md, "Yardsticks"); absent when the problem's work or the
  // device's roofs are unknown.
  std::optional<PeakFraction> peak;
};

class Evaluator {
 public:
  static Result<std::unique_ptr<Evaluator>> create(const EvaluatorOptions& options);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Builds (or finds in the cache) the candidate library. Thread-safe; needs no GPU.
  Compiled compile(const std::string& source_path);
  // Judges a compiled candidate. One call at a time per Evaluator (it owns one oracle / one GPU).
  Verdict evaluate(const std::string& problem_path, const Compiled& compiled);
  // compile() then evaluate(); the oracle's start and the problem's load run while the candidate compiles.
  Verdict evaluate_file(const std::string& problem_path, const std::string& candidate_path);

  Result<Signature> signature(const std::string& problem_path);
  Result<EnvironmentInfo> environment();
  // Trivial-output statistics on trial `trial` (0 = the problem's own inputs) for the audit.
  Result<std::vector<TrivialReport>> trivial_stats(const std::string& problem_path, int trial,
                                                   const std::vector<double>& allclose_tolerances);
  // The same on trial `trial` of KernelBench's own correctness check with `trials` trials: its seeds (derived
  // from seed 42), the problem's get_inputs() on the CPU, torch.allclose(reference, trivial). docs/audit.md.
  Result<std::vector<TrivialReport>> kernelbench_trivial_stats(const std::string& problem_path, int trial, int trials,
                                                               const std::vector<double>& allclose_tolerances);

  // The roofline's work of a problem per trial shape (seeds: the evaluation's first `trials` seeds), and this
  // device's peaks (docs/evaluator.md, "Yardsticks").
  Result<Roofline> roofline(const std::string& problem_path);

  // One baseline alone (no candidate), with the options' timing settings: "eager", or "compile"
  // (torch.compile in the options' compile mode, compiled before its first timed round, as for a candidate).
  Result<BaselineTiming> time_baseline(const std::string& problem_path, const std::string& which = "eager");

  // Nsight Compute's figures of a compiled candidate judged correct, for the model's feedback
  // (docs/evaluator.md, "Profile feedback"): the trusted side starts a runner of its own under `ncu` (cuda
  // backend), runs one untimed trial and reads ncu's CSV. Advice only; an error when ncu or its output fails.
  Result<KernelProfile> profile(const std::string& problem_path, const Compiled& compiled, const std::string& ncu);

  const EvaluatorOptions& options() const;

 private:
  struct Impl;
  explicit Evaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Nsight Compute's command-line program: $KFORGE_NCU, else <cuda_home>/bin/ncu, else `ncu` on PATH; "" when none.
std::string find_ncu(const std::string& cuda_home);
// The profiling run's command prefix: ncu writing CSV to `csv_file`, the sections SpeedOfLight and Occupancy
// and the warp-stall metrics, the first 16 kernel launches of every process it starts.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& csv_file);

// The C-ABI header candidates include (evaluator/kforge.h as installed).
std::string kforge_header_path();

}  // namespace kf::eval
