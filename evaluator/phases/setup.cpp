// The setup phases: everything before the candidate's first trial. The problem loaded in the oracle (and, for a
// kernelbench solution, the static torch-fallback rule, decided before anything of the solution runs); the job
// folder, the trials' seeds, the timing plan and the oracle's buffers; a clean device; the runner started. Then,
// with the runner running: the round overhead calibrated while no candidate code exists, and the candidate loaded.
#include <algorithm>

#include "core/files.h"
#include "core/time.h"
#include "evaluator/evaluation_context.h"
#include "evaluator/kernelbench/static_check.h"
#include "sandbox/leftovers.h"

namespace kf::eval {

namespace {

// The harness failed: the verdict is final, and says so (never a verdict on the candidate).
Next harness_error(Verdict& v, const std::string& code, const std::string& detail) {
  judge_harness_failure(v, {code, detail});
  return Next::stop;
}

double startup_limit_s(bool kernelbench) { return kernelbench ? kKernelbenchStartupLimitS : kStartupLimitS; }

// How long the runner may live from the candidate's load: --timeout, and for a kernelbench solution the start-up
// limit on top (importing it builds or loads its extensions).
double candidate_lifetime_s(double timeout_s, bool kernelbench) {
  return timeout_s + (kernelbench ? kKernelbenchStartupLimitS : 0.0);
}

}  // namespace

void Evaluator::Impl::begin_verdict(EvaluationContext& s) {
  Verdict& v = s.verdict;
  v.problem = s.problem;
  v.backend = to_string(opt.backend);
  v.candidate_kind = to_string(s.compiled.kind);
  v.compile_s = s.compiled.compile_s;
  v.compiler_output = s.compiled.compiler_output;
  if (s.compiled.cache_hit) v.flags.push_back("compile_cache_hit");
  // Correct until a reason says otherwise: the judge's finishing rule decides from the reasons (judgement.cpp).
  v.kind = VerdictKind::correct;
  v.checks.trials.emplace();
  v.checks.precision = opt.precision;
  v.checks.tolerances = tolerances_json();
  v.checks.reduced_precision_allowed = opt.allow_reduced_precision;
}

Next Evaluator::Impl::load_problem(EvaluationContext& s) {
  Verdict& v = s.verdict;
  auto l = load(s.problem, s.compiled.kind);
  s.phase_done("load");
  if (!l.ok())
    return harness_error(v, l.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                         l.error().message);
  if (s.kernelbench) {
    StaticChecks& found = v.checks.static_check.emplace();
    found.findings = s.compiled.static_findings;
    v.checks.build = s.compiled.build_log;
    // The torch-fallback rule needs the reference's work: decided here, before anything of the solution runs.
    auto work = problem_reference_work(s.problem_key, s.problem);
    if (work.ok()) {
      found.reference_ops = work->ops;
      found.reference_units = work->units;
      kernelbench::Coverage coverage;
      auto r = kernelbench::judge_torch_fallback(s.compiled.static_findings, *work, &coverage);
      if (!r.empty()) {
        v.reasons = r;
        return Next::stop;
      }
      // Partial replacement (KernelBench allows it): what PyTorch still does of the reference's work.
      found.coverage = coverage.to_json();
      if (coverage.partial()) {
        v.flags.push_back("torch_compute_in_forward");
        found.torch_compute = coverage.torch;
      }
    } else {
      found.reference_ops_error = work.error().message;
    }
  }
  v.checks.input_generator = (*l)["input_generator"];
  for (const char* role : {"inputs", "outputs"})
    for (const auto& spec : (*l)[role]) s.varying_shapes = s.varying_shapes || spec.contains("varying");
  s.loaded_problem = std::move(*l);
  return Next::go_on;
}

Result<kernelbench::ReferenceWork> Evaluator::Impl::problem_reference_work(const std::string& key,
                                                                           const std::string& problem) {
  if (auto it = reference_work.find(key); it != reference_work.end()) return it->second;
  auto* sc = get_solution_compiler();
  if (!sc) return make_error("harness.gpu_arch", compiler_setup_error);
  auto env = sc->python_env();
  if (!env.ok()) return env.error();
  auto text = read_file(problem);
  if (!text.ok()) return text.error();
  auto found = kernelbench::run_static_check(*env, "problem", *text);
  if (!found.ok()) return found.error();
  return reference_work[key] = kernelbench::ReferenceWork::from_findings(*found);
}

Next Evaluator::Impl::prepare_job(EvaluationContext& s) {
  Verdict& v = s.verdict;
  auto folder = sandbox::make_owned_folder(opt.work_root, "kforge-eval");
  if (!folder) return harness_error(v, "harness.work_root", folder.error().message);
  s.job.dir = *folder;
  s.job.release = [this] { (void)ask({{"op", "release"}}); };
  const std::string& job_dir = s.job.dir;

  // Every seed this evaluation will prepare, so that buffers fit the largest trial of a problem whose
  // shapes depend on the seed (the order of the trials: trials.cpp, revalidation.cpp).
  s.seed = trial_seed();
  v.checks.seed = s.seed;
  for (int k = 0; k < opt.trials; ++k) s.seeds.push_back(s.seed + static_cast<uint64_t>(k));
  s.seeds.push_back(s.seed + 1000 + static_cast<uint64_t>(opt.trials));
  s.seeds.push_back(s.seed + 500);  // the precision trial
  if (opt.time_candidate) {
    auto pl = plan(s.problem_key);
    if (!pl.ok())
      return harness_error(v, pl.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                           pl.error().message);
    s.plan = *pl;
    TimingRecord& timing = v.checks.timing_record();
    timing.slots = pl->max_slots;
    timing.repeatable_inputs = pl->repeatable_inputs;
    timing.inputs_repeated = pl->inputs_repeated;
    timing.repeated_inputs = pl->repeated_inputs;
  }
  auto setup = ask({{"op", "setup"}, {"dir", job_dir}, {"seeds", s.seeds}, {"slots", s.plan ? s.plan->max_slots : 1}});
  if (!setup.ok()) return harness_error(v, "harness.oracle", setup.error().message);
  // The previous candidate's runner must be gone from the device before this one runs (device_check.h).
  if (!runner_pids.empty() || !runner_tree_empty) {
    auto dc = check_device();
    if (!dc.ok()) return harness_error(v, "harness.oracle", dc.error().message);
    v.checks.device_before = dc->record;
    if (dc->clean == false)
      return harness_error(
          v, "harness.device_not_clean",
          "a previous candidate's runner still holds the device (processes, contexts or memory): " + dc->record.dump());
  }
  auto l = runner_launch(job_dir, s.compiled, s.loaded_problem, (*setup)["buffers"]);
  if (!l.ok()) return harness_error(v, l.error().code, l.error().message);
  if (auto st = write_file_atomic(job_dir + "/job.json", l->job.dump()); !st.ok())
    return harness_error(v, "harness.job", st.error().message);
  s.launch = std::move(*l);
  return Next::go_on;
}

Next Evaluator::Impl::start_runner(EvaluationContext& s) {
  Verdict& v = s.verdict;
  const bool kb = s.kernelbench;
  if (kb) {
    s.first_round_limit_s = kKernelbenchFirstCallLimitS;
    v.checks.startup_limit_s = startup_limit_s(kb);
    v.checks.first_call_limit_s = kKernelbenchFirstCallLimitS;
  }
  if (s.plan) {
    s.call_limit_s = std::max(kCallLimitFloorS, kCallLimitFactor * s.plan->call_ms / 1e3);
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s (" +
                        std::to_string(static_cast<int>(kCallLimitFactor)) + "x the reference's " +
                        std::to_string(s.plan->call_ms) + " ms, at least " +
                        std::to_string(static_cast<int>(kCallLimitFloorS)) + " s)";
  } else {
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s";
  }
  v.checks.call_limit_s = s.call_limit_s;
  const RunnerLaunch& launch = *s.launch;
  // The replayer of a solution the static check cannot attribute starts now: its python and torch load while the
  // runner's do (replay_attribution.cpp). Only load_inline extensions are replayed (not Triton launches).
  if (kb && !s.compiled.extensions.empty() && !statically_attributed(s.compiled))
    s.replayer = start_replayer(s.compiled, launch);
  // What the runner does before the candidate is loaded (its start-up, the round overhead's calibration) is the
  // harness's and has the start-up limit; --timeout counts from the load (load_candidate). A kernelbench
  // runner's load (importing the solution, its extensions) gets the start-up limit on top.
  const double lifetime_s = startup_limit_s(kb) + candidate_lifetime_s(opt.runner_timeout_s, kb);
  if (auto st = s.runner.start(launch.command, s.job.dir, launch.env, now_s() + lifetime_s, launch.confinement);
      !st.ok())
    return harness_error(v, "harness.runner", st.error().message);
  return Next::go_on;
}

Next Evaluator::Impl::load_candidate(EvaluationContext& s) {
  const double limit_s = startup_limit_s(s.kernelbench);
  // Start-up: "mapped" (buffers mapped, no candidate code yet: the round overhead is measured now), then on
  // "load" the line "loading" (a failure before it is the harness's) and "ready" (from here on the runner
  // may speak for the candidate). A runner that fails here is judged (runner_failed).
  auto mapped = s.runner.exchange(nullptr, now_s() + limit_s);
  bool up = !runner_failed(s, mapped, "start-up");
  if (up && s.plan) up = calibrate_rounds(s, *s.plan) == Next::go_on;
  if (up) {
    s.runner.start_lifetime(now_s() + candidate_lifetime_s(opt.runner_timeout_s, s.kernelbench));
    s.runner.thaw();
    auto loading = s.runner.exchange(nlohmann::json{{"op", "load"}}, now_s() + limit_s);
    up = !runner_failed(s, loading, "start-up");
  }
  if (up) {
    s.loaded = true;
    const std::string call_limit_text = s.call_limit_text;
    s.call_limit_text = "the start-up limit of " + std::to_string(static_cast<int>(limit_s)) + " s";
    auto ready = s.runner.exchange(nullptr, now_s() + limit_s);
    up = !runner_failed(s, ready, "loading the candidate");
    s.call_limit_text = call_limit_text;
    if (up && !s.runner.freeze()) s.freeze_failed = true;
  }
  s.phase_done("setup");
  s.runner_ready = up;
  return up ? Next::go_on : Next::stop;
}

}  // namespace kf::eval
