#pragma once
// The evaluator's long-lived state (Evaluator::Impl: the oracle, options, caches, device facts) and the limits
// every part of an evaluation shares. Internal to evaluator/: evaluator.cpp (setting up and the public calls),
// phases/phase_list.cpp (one candidate's evaluation: the list of its phases, each in evaluator/phases/, on an
// EvaluationContext, evaluation_context.h), rounds.cpp (one runner round, the timing plan, the baseline's timing).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluator/compile.h"
#include "evaluator/device_check.h"
#include "evaluator/evaluator.h"
#include "evaluator/kernelbench/solution_compiler.h"
#include "evaluator/kernelbench/static_check.h"
#include "evaluator/oracle_client.h"
#include "evaluator/runner_session.h"
#include "evaluator/timing_policy.h"
#include "sandbox/leftovers.h"

namespace kf::eval {

struct EvaluationContext;

// What a phase tells the evaluation: go on to the next phase, or stop. A phase that stops has put its reason in
// the verdict (a reason against the candidate, a runner failure or a harness failure, judged where it happened).
enum class Next { go_on, stop };

// The audit's trials (kforge audit) keep fixed seeds: its figures describe the problem, not one evaluation.
inline constexpr uint64_t kAuditSeed = 42;
inline const char* const kVariants[] = {"own", "signed_outliers", "scaled_large", "scaled_small", "outliers"};
// Runaway limits: a call may take this many times the baseline's time per call, and never less than the
// floor (first calls include lazy initialisation: module loading, handles, workspaces).
inline constexpr double kCallLimitFactor = 100;
inline constexpr double kCallLimitFloorS = 10;
inline constexpr double kStartupLimitS = 60;  // loading the candidate, CUDA context, buffer mapping
// A kernelbench runner starts python and imports torch before it loads the solution, and its first call may
// include Triton's JIT and lazy CUDA initialisation: both get this limit (recorded in the verdict).
inline constexpr double kKernelbenchStartupLimitS = 120;
inline constexpr double kKernelbenchFirstCallLimitS = 120;
inline constexpr int kMaxSlots = 128;
// Slots are allocated for a candidate up to this many times faster than the reference (memory permitting), so
// that a fast candidate's rounds still hold about round_target_ms of calls (KernelBench level 1's LayerNorm:
// 8.1 ms eager, 0.25 ms hand-written; with one call per round the harness's ~0.25 ms per round was half of it).
inline constexpr int kFastCandidateFactor = 32;
inline constexpr size_t kCheckedSlotsPerRound = 2;

// Text from the candidate's side made safe for terminals, the corpus and models (docs/evaluator.md).
void clean_verdict(Verdict& v);
// One output's statistics from the oracle's comparison. A figure the oracle could not give (not finite: it
// sends null) is kNotFinite, larger than every tolerance; the trial records show it as such.
inline constexpr double kNotFinite = 1e308;
OutputStats stats_from(const nlohmann::json& j);
// The dtype tolerances, as recorded in a verdict's checks.
nlohmann::json tolerances_json();
// The local GPU's architecture for nvcc ("sm_90a"), from nvidia-smi; "" when there is none.
std::string detect_gpu_arch();

// What the trusted replay of a kernelbench solution's extension calls found (evaluator/replay_attribution.cpp).
struct ReplayOutcome {
  bool trusted = false;
  bool mismatch = false;  // a replayed output differed from the recorded one (a forged record, or hidden state)
  std::string why;        // when not trusted
  int calls = 0;
  double seconds = 0;
};

// The replayer of a kernelbench solution's extension calls, started beside the runner (replay_attribution.cpp):
// its own folder (the extensions' copies, job.json; its results) and a folder it reads only (the oracle's job).
struct Replayer {
  RunnerSession session;
  std::string work_dir, input_dir;
  nlohmann::json keys = nlohmann::json::array();  // the extensions' keys
  bool started = false;
  std::string setup_error;
  ~Replayer();
};

// libkforge-seccomp.so: $KFORGE_SECCOMP_LIBRARY, else beside the runner (evaluator/runner_launch.cpp).
std::string runner_seccomp_library(const std::string& runner_path);

// What starts one evaluation's runner: its command, environment, confinement and job file.
struct RunnerLaunch {
  std::vector<std::string> command;  // program and first arguments; --job ... follow
  std::map<std::string, std::string> env;
  RunnerSandbox confinement;
  nlohmann::json job;
};

// How a problem's timing rounds are sized (Evaluator::Impl::plan, cached per problem).
struct TimingPlan {
  double call_ms = 0;  // one reference call, as the oracle measured it
  int slots = 1;       // calls per round sized from the reference (calibration and baseline rounds)
  int max_slots = 1;   // buffer slots allocated: calls per round for a candidate kFastCandidateFactor x faster
  int64_t slot_bytes = 0;
  bool repeatable_inputs = false;  // a checked slot's inputs are drawn again from its seed (no copies kept)
  // The timed rounds cannot get fresh inputs: every forward argument repeats between draws (the problem's
  // get_inputs() ignores the seed, or its seed-dependent shapes allow no redraw). Its speedup is not verified.
  bool inputs_repeated = false;
  nlohmann::json repeated_inputs = nlohmann::json::array();  // forward arguments that repeat, by name
};

struct Evaluator::Impl {
  EvaluatorOptions opt;
  std::string oracle_log;
  std::unique_ptr<OracleClient> oracle;
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<kernelbench::SolutionCompiler> solution_compiler;
  std::mutex compiler_mutex;
  std::mutex eval_mutex;
  std::optional<double> bandwidth;
  std::string compiler_setup_error;
  // Per problem (absolute path + precision): how timing rounds are sized, and the baseline's timing.
  using Plan = TimingPlan;
  std::map<std::string, Plan> plans;
  std::map<std::string, BaselineRounds> baselines;
  std::map<std::string, kernelbench::ReferenceWork> reference_work;  // per problem_key: the torch-fallback rule's
  std::mt19937_64 rng{std::random_device{}()};  // the trusted side's choices; never sent to the runner
  // The first trial's seed of one evaluation: --seed, else 48 bits from the OS's entropy (exact in any JSON
  // reader), drawn afresh for every evaluation so that no trial can be told by regenerating its inputs.
  uint64_t trial_seed() {
    if (opt.seed) return *opt.seed;
    std::random_device dev;
    return ((static_cast<uint64_t>(dev()) << 32) | dev()) >> 16;
  }

  ~Impl() {
    if (oracle) oracle->stop();
    if (!oracle_log.empty()) sandbox::remove_owned_folder(std::filesystem::path(oracle_log).parent_path().string());
  }

  // The GPU architecture for nvcc (cuda backend): the option, else detected. False (with
  // compiler_setup_error set) when there is none. Called with compiler_mutex held.
  bool resolve_gpu_arch() {
    if (opt.backend != Backend::cuda) return true;
    if (opt.gpu_arch.empty()) opt.gpu_arch = detect_gpu_arch();
    if (opt.gpu_arch.empty())
      compiler_setup_error =
          "cannot detect the GPU architecture (nvidia-smi found no GPU); pass --gpu-arch, e.g. sm_90a";
    return !opt.gpu_arch.empty();
  }

  kernelbench::SolutionCompiler* get_solution_compiler() {
    std::lock_guard lock(compiler_mutex);
    if (solution_compiler) return solution_compiler.get();
    if (!resolve_gpu_arch()) return nullptr;
    kernelbench::SolutionConfig sc;
    sc.backend = opt.backend;
    sc.python = opt.python;
    sc.cuda_home = opt.cuda_home;
    sc.gpu_arch = opt.gpu_arch;
    sc.cache_dir = opt.cache_dir;
    // torch's headers alone take tens of seconds to compile: a solution's build jobs get at least 300 s.
    sc.timeout_s = std::max(opt.compile_timeout_s, 300.0);
    sc.allow_vendor_libs = opt.allow_vendor_libs;
    sc.use_pch = opt.kernelbench_pch;
    solution_compiler = std::make_unique<kernelbench::SolutionCompiler>(sc);
    return solution_compiler.get();
  }

  Compiler* get_compiler() {
    std::lock_guard lock(compiler_mutex);
    if (compiler) return compiler.get();
    CompilerConfig cc;
    cc.backend = opt.backend;
    cc.cuda_home = opt.cuda_home;
    cc.cache_dir = opt.cache_dir;
    cc.header_dir = std::filesystem::path(kforge_header_path()).parent_path().string();
    cc.timeout_s = opt.compile_timeout_s;
    cc.allow_vendor_libs = opt.allow_vendor_libs;
    if (!resolve_gpu_arch()) return nullptr;
    cc.gpu_arch = opt.gpu_arch;
    compiler = std::make_unique<Compiler>(cc);
    return compiler.get();
  }

  Result<nlohmann::json> ask(const nlohmann::json& req) { return oracle->request(req, opt.oracle_timeout_s); }
  Result<std::vector<TrivialReport>> trivial_reports(const nlohmann::json& request);
  TimingPolicyOptions policy_options() const {
    return {opt.warmup_rounds, opt.min_rounds, opt.max_rounds, opt.timing_budget_ms, opt.max_noise};
  }
  // The key of a problem's cached plans, baselines and rooflines: its absolute path, the precision, the file's
  // modification time (a problem edited under the same path is planned and timed afresh) and, for a kernelbench
  // candidate, the kind (its problem is loaded without exporting the model's state).
  std::string problem_key(const std::string& problem, CandidateKind kind = CandidateKind::kf_forward) const {
    std::error_code ec;
    auto mtime = std::filesystem::last_write_time(problem, ec).time_since_epoch().count();
    return std::filesystem::absolute(problem).string() + "|" + opt.precision + "|" + std::to_string(mtime) +
           (kind == CandidateKind::kernelbench ? "|kernelbench" : "");
  }
  // The timing plan of the loaded problem (`key`: problem_key's).
  Result<Plan> plan(const std::string& key);
  // The eager baseline's timing; `copies_outputs`: each call's results copied into buffers inside the timed
  // calls, as a kernelbench runner does with ModelNew's (cached apart from the plain baseline).
  // Timed on a clean device only: checked before and after (device_check.h), retimed up to three times.
  Result<BaselineRounds> baseline(const std::string& key, const Plan& plan, bool copies_outputs = false,
                                  const std::string& which = "eager");
  // The yardsticks of a correct, timed candidate (yardsticks.cpp): every baseline the options name, timed, the
  // primary one's speedup as the verdict's, the roofline and each time's fraction of peak. `seeds`: the
  // evaluation's trial seeds (the shapes its calls had).
  void measure_yardsticks(const std::string& key, Verdict& v, const Plan& plan, bool copies_outputs,
                          const nlohmann::json& seeds);
  bool times_compile_baseline() const;
  // torch.compile of the loaded problem's reference in opt.compile_mode (per problem, cached here and in the
  // oracle): the oracle's answer (compiled, error, compile_s); *cached: compiled by an earlier evaluation.
  Result<nlohmann::json> compile_reference(const std::string& key, const Plan& plan, bool* cached);
  Result<Roofline> problem_roofline(const std::string& key, const nlohmann::json& seeds);
  Result<DevicePeaks> device_peaks_measured();
  std::map<std::string, nlohmann::json> compiled_references;  // per problem_key|mode
  std::map<std::string, Roofline> rooflines;                  // per problem_key
  std::optional<DevicePeaks> peaks;
  // The finished runners' process ids and whether their trees were found empty: the device check before the
  // baseline and before the next candidate watches them.
  std::vector<int> runner_pids;
  bool runner_tree_empty = true;
  Result<DeviceState> check_device();

  // Loads a problem for a candidate of `kind`: a kernelbench candidate keeps its parameters inside ModelNew,
  // so the model's state_dict entries are not exported as inputs (and buffers, plans and baselines differ).
  Result<nlohmann::json> load(const std::string& problem, CandidateKind kind = CandidateKind::kf_forward) {
    return ask({{"op", "load"},
                {"path", std::filesystem::absolute(problem).string()},
                {"precision", opt.precision},
                {"backend", to_string(opt.backend)},
                {"export_state", kind != CandidateKind::kernelbench}});
  }
  // The work of a problem's reference (static check of its file, cached per problem_key), for the
  // torch-fallback rule of kernelbench candidates.
  Result<kernelbench::ReferenceWork> problem_reference_work(const std::string& key, const std::string& problem);

  // One candidate's evaluation (phases/phase_list.cpp): the phases below, in the order of their lists there, on
  // a context that lives for this evaluation only (evaluation_context.h). Each phase is in its own file under
  // evaluator/phases/ and returns whether the evaluation goes on (Next).
  Verdict evaluate(const std::string& problem, const Compiled& compiled);
  // The verdict of a candidate that did not build: the compiler's, with the evaluation's fields.
  Verdict compile_failure(const std::string& problem, const Compiled& compiled) const;
  using Phase = Next (Impl::*)(EvaluationContext&);
  // The phases while the runner runs, in order; each one only while the ones before went on.
  std::vector<Phase> runner_phases() const;
  // phases/setup.cpp, before the runner runs (a stop is final: a harness error, or kernelbench's static
  // torch-fallback rule; nothing of the candidate has run): the verdict's first fields; the problem loaded (and
  // a kernelbench solution's static rule); the job folder, seeds, timing plan and buffers, the device clean; the
  // runner started. Then, with the runner: the round overhead calibrated and the candidate loaded.
  void begin_verdict(EvaluationContext& s);
  Next load_problem(EvaluationContext& s);
  Next prepare_job(EvaluationContext& s);
  Next start_runner(EvaluationContext& s);
  Next load_candidate(EvaluationContext& s);
  // phases/trials.cpp: the correctness trials on every input set, then the fp32 precision trial.
  Next run_trials(EvaluationContext& s);
  // phases/timing.cpp: the candidate's timed rounds. Reasons found beside a trial (a vendor library in the
  // runner's maps) do not stop the timing, but they stop what follows it.
  Next time_candidate(EvaluationContext& s);
  // phases/revalidation.cpp: outputs checked again after the timing, on fresh and on nearly-repeated inputs.
  Next revalidate(EvaluationContext& s);
  // phases/runner_end.cpp, whatever the runner phases did: the last look at the runner's maps, a kernelbench
  // solution's attribution trial (only when `ran_through`: every runner phase went on), the runner's end (what
  // the next device check watches), whose work the outputs were.
  void end_runner(EvaluationContext& s, bool ran_through);
  // phases/baseline.cpp: the yardsticks of a candidate correct so far and timed (baselines, roofline) and the
  // physical floor of its time; nothing for any other.
  void time_baselines(EvaluationContext& s);
  // phases/judgement.cpp: the judge's finishing rule (finalize), the text cleaned, the evaluation's time.
  Verdict judge(EvaluationContext& s);

  // Prepares the job folder (the candidate's files copied in) and the launch (evaluator/runner_launch.cpp).
  Result<RunnerLaunch> runner_launch(const std::string& job_dir, const Compiled& compiled, const nlohmann::json& loaded,
                                     const nlohmann::json& buffers);
  // Attribution by trusted replay (evaluator/replay_attribution.cpp). Whether the static check proved forward
  // reaches only the solution's kernels and glue; the replayer, started beside the runner; one more checked
  // trial (trial 0's seed) whose extension calls the runner records (false when it fails: its reasons are the
  // verdict's); then, with the runner gone, the replay of those calls and the oracle's judgement of record
  // against replay.
  static bool statically_attributed(const Compiled& compiled);
  bool record_trial(EvaluationContext& s);
  std::unique_ptr<Replayer> start_replayer(const Compiled& compiled, const RunnerLaunch& launch);
  ReplayOutcome replay_attribution(Replayer& replayer, const std::string& job_dir, double call_limit_s);

  // What every phase uses (phases/runner_checks.cpp, rounds.cpp).
  // A kernelbench round whose runner counted no call into the solution's own kernels (rejected.torch_fallback).
  bool no_custom_kernel(EvaluationContext& s, const RunnerEnd& e, const std::string& during);
  // Runs one round (thaw, clock, command, answer, clock, freeze). Fills *ms with the trusted wall time.
  RunnerEnd round(EvaluationContext& s, const nlohmann::json& order, const nlohmann::json& shapes, double* ms,
                  int64_t touch_bytes = 0);
  bool runner_failed(EvaluationContext& s, const RunnerEnd& e, const std::string& during);
  // Vendor libraries in the (frozen) runner's memory maps; adds rejected.vendor_library once.
  void check_maps(EvaluationContext& s);
  // An oracle request failed: judged against the candidate when the oracle says it tampered with a shared buffer,
  // else a harness (or problem) failure.
  void judge_oracle_failure(Verdict& v, const Error& e);
  // One correctness trial on slot 0: prepare, one call, compare, judge (phases/trials.cpp). Returns its reasons
  // (already added to the verdict unless `hold`), or nullopt when the evaluation cannot go on.
  std::optional<std::vector<Reason>> one_trial(EvaluationContext& s, int trial, uint64_t seed,
                                               const std::string& variant, const std::string& label, bool hold = false);
  // Judges one comparison from the oracle (phases/trials.cpp); *record receives its record for checks.trials.
  std::vector<Reason> judge_comparison(EvaluationContext& s, const nlohmann::json& cmp, int trial,
                                       const std::string& label, TrialRecord* record);
  // Fresh inputs on unpredictable seeds in each of `slots` slots, outputs poisoned, the L2 flushed (the
  // oracle's prepare_round; the runner is frozen meanwhile).
  Result<nlohmann::json> prepare_round(int slots);
  // The oracle's check after a round: the poison scan of every slot, a comparison of `check_slots`.
  nlohmann::json round_check_request(const nlohmann::json& check_slots);
  // Rounds of the runner's own GPU work (memsets lasting about as long as a round of the plan's calls) between
  // the same oracle work as a timed round's (prepare_round before, the poison scan after), while no candidate
  // code exists in the runner: the lower quartile of their time beyond the memsets is the round overhead.
  // Stops when the runner or the oracle failed (judged).
  Next calibrate_rounds(EvaluationContext& s, const Plan& plan);
  // Calls per timed round for this candidate (phases/timing.cpp): enough of its calls to fill round_target_ms,
  // judged from the trusted times of its trial calls, between the plan's slots and max_slots.
  int candidate_calls_per_round(const EvaluationContext& s, const Plan& plan) const;
  // The timing rounds of `k` calls each (phases/timing.cpp).
  Next timed_rounds(EvaluationContext& s, int k);

  // A correct kernel's profile under Nsight Compute (kernel_profiling.cpp): its own runner, one untimed trial.
  Result<KernelProfile> profile(const std::string& problem, const Compiled& compiled, const std::string& ncu);
};

}  // namespace kf::eval
