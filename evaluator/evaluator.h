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

namespace kf::eval {

enum class Backend { cuda, host };
std::string to_string(Backend backend);
Result<Backend> parse_backend(const std::string& text);  // "cuda" | "host"

struct EvaluatorOptions {
  Backend backend = Backend::cuda;
  std::string python;              // oracle interpreter; empty: $KFORGE_PYTHON, else "python3"
  std::string precision = "fp32";  // fp32 | fp16 | bf16
  int trials = 3;                  // correctness trials before timing (minimum 3)
  uint64_t seed = 42;              // seed of the first trial; trial k uses seed + k
  bool allow_vendor_libs = false;  // cuBLAS, cuDNN, ... allowed in candidates
  std::string work_root;           // per-evaluation private dirs; empty: /dev/shm (else $TMPDIR)
  std::string cache_dir;           // compile cache; empty: $XDG_CACHE_HOME/kforge or ~/.cache/kforge
  std::string cuda_home;           // toolkit root; empty: $CUDA_HOME, else /usr/local/cuda
  std::string gpu_arch;            // e.g. "sm_90a"; empty: detect (nvidia-smi compute_cap)
  std::string runner_path;         // empty: $KFORGE_RUNNER, else kforge-runner beside the running binary
  // How far the cuda runner is isolated (docs/sandbox.md): full | shared-pid | none.
  // Empty: $KFORGE_CUDA_RUNNER_ISOLATION, else the default there.
  std::string cuda_runner_isolation;
  double compile_timeout_s = 300;
  double runner_timeout_s = 120;   // whole runner lifetime for one evaluation
  double oracle_timeout_s = 600;   // one oracle request (loading a big problem may take a while)
  int warmup_calls = 3;
  int min_timed_calls = 10;
  int max_timed_calls = 100;
  double timing_budget_ms = 2000;  // stop timing after this much measured time (after min calls)
  double suspicious_speedup = 10;  // flag "suspicious_speedup" above this ratio
  bool measure_baseline = true;
  // Time the eager baseline with cuDNN TF32 allowed (torch's default, KernelBench's conditions) instead
  // of with TF32 off like the reference. For comparisons with figures measured under torch defaults only:
  // candidates must meet fp32 accuracy, so the default baseline is held to it too.
  bool baseline_cudnn_tf32 = false;
  bool time_candidate = true;      // false: correctness only
};

struct Reason {
  std::string code;    // stable, e.g. "incorrect.rel_l2" (docs/evaluator.md lists them)
  std::string detail;  // figures and where
};

struct Verdict {
  std::string problem;
  std::string backend;
  std::string verdict = "harness_error";  // correct|incorrect|compile_error|runtime_error|timeout|rejected|harness_error
  bool correct = false;
  std::vector<Reason> reasons;
  nlohmann::json checks = nlohmann::json::object();  // per-trial error figures, coverage, timing details
  std::optional<double> time_ms, ref_time_ms, speedup;
  std::vector<std::string> flags;  // e.g. "degenerate_problem", "suspicious_speedup", "cache_hit"
  double compile_s = 0;
  double eval_s = 0;
  std::string compiler_output;     // capped, first errors intact

  nlohmann::json to_json() const;
  // Exit code of `kforge eval`: 0 correct, 1 other candidate verdicts, 3 harness_error.
  int exit_code() const;
};

// Result of compile(): a loadable library or a terminal verdict (compile_error / rejected / harness_error).
struct Compiled {
  std::string source_path;
  std::string library_path;      // set when ok()
  bool cache_hit = false;
  double compile_s = 0;
  std::string compiler_output;
  std::optional<Verdict> failure;  // set when compilation did not produce an acceptable library
  bool ok() const { return !failure.has_value(); }
};

struct TensorSpec {
  std::string name;   // forward argument name or state_dict key
  std::string dtype;  // "float32", "float16", "bfloat16", "float64", "int64", "int32", "bool", "int8", "uint8"
  std::vector<int64_t> shape;       // on trial 0 (the problem's own inputs)
  std::vector<int> varying_dims;    // dimensions whose size depends on the seed (read from kf_tensor.shape)
};

struct Signature {
  std::string problem;
  std::string precision;
  std::vector<TensorSpec> inputs;   // forward args, then state_dict() entries
  std::vector<TensorSpec> outputs;  // forward results in order
  // The commented C declaration shown in prompts.
  std::string to_c_declaration() const;
  nlohmann::json to_json() const;
};

struct EnvironmentInfo {
  std::string backend;
  std::string gpu_name;      // empty on host
  std::string gpu_arch;      // e.g. "sm_90a"
  std::string torch_version;
  std::string cuda_version;  // torch.version.cuda
  std::string python;
  std::optional<double> copy_bandwidth_gbps;  // device copy bandwidth (read + write), cuda only
  nlohmann::json to_json() const;
};

// Error statistics of one output against the reference (computed by the oracle where the data lives).
struct OutputStats {
  int64_t numel = 0;
  bool shape_match = true;
  bool dtype_match = true;
  bool floating = true;
  double rel_l2 = 0;             // ||out-ref||_2 / ||ref||_2 over finite reference positions
  double max_abs = 0;
  double ref_rms = 0;
  int64_t violations = 0;        // elements outside atol_scale*rms(ref) + rtol*|ref|
  std::vector<int64_t> first_violations;  // flat indices (at most a few)
  int64_t nan_inf_mismatch = 0;  // positions where non-finiteness (NaN / +Inf / -Inf) differs
  int64_t unwritten = 0;         // elements still equal to the poison pattern
  int64_t mismatched_exact = 0;  // integer/bool outputs: elements that differ
  std::vector<int64_t> first_unwritten;
};

// Dtype-derived acceptance constants (docs/evaluator.md explains the choice).
struct Tolerance {
  double rel_l2;      // relative L2 error bound
  double rtol;        // per-element relative part
  double atol_scale;  // per-element absolute part, times rms(ref)
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
std::vector<Reason> judge_non_trivial(const std::string& where, const std::string& dtype,
                                      const OutputStats& candidate, const std::vector<TrivialStats>& trivial,
                                      std::vector<std::string>* degenerate);
// Would this trivial output's statistics pass the judge on their own (the audit's "degenerate" test)?
bool trivial_passes(const std::string& dtype, const OutputStats& stats);

// For the audit helper: statistics of trivial outputs against the reference of one trial.
struct TrivialReport {
  std::string output;                 // "output0", ...
  std::string dtype;
  std::string trivial;                // zeros | constant | passthrough:<input name> | partial_0.3pct
  OutputStats stats;
  bool judge_passes = false;          // trivial_passes(dtype, stats)
  std::vector<std::pair<double, bool>> allclose;  // (tolerance t, torch.allclose(out, ref, atol=t, rtol=t))
};

// The PyTorch eager baseline of a problem, timed as `evaluate` times it (warm-up, L2 flush, median).
struct BaselineTiming {
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
  int calls = 0;
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
  // compile() then evaluate().
  Verdict evaluate_file(const std::string& problem_path, const std::string& candidate_path);

  Result<Signature> signature(const std::string& problem_path);
  Result<EnvironmentInfo> environment();
  // Trivial-output statistics on trial `trial` (0 = the problem's own inputs) for the audit.
  Result<std::vector<TrivialReport>> trivial_stats(const std::string& problem_path, int trial,
                                                   const std::vector<double>& allclose_tolerances);
  // The same on trial `trial` of KernelBench's own correctness check with `trials` trials: its seeds (derived
  // from seed 42), the problem's get_inputs() on the CPU, torch.allclose(reference, trivial). docs/audit.md.
  Result<std::vector<TrivialReport>> kernelbench_trivial_stats(const std::string& problem_path, int trial,
                                                              int trials,
                                                              const std::vector<double>& allclose_tolerances);

  // The eager baseline alone (no candidate), with the options' timing settings.
  Result<BaselineTiming> time_baseline(const std::string& problem_path);

  const EvaluatorOptions& options() const;

 private:
  struct Impl;
  explicit Evaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The C-ABI header candidates include (evaluator/kforge.h as installed).
std::string kforge_header_path();

}  // namespace kf::eval
