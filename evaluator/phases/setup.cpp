// The setup phase: everything before the candidate's first trial. The problem loaded in the oracle (and, for a
// kernelbench solution, the static torch-fallback rule, decided before anything of the solution runs); the job
// folder, the trials' seeds, the timing plan and the oracle's buffers; a clean device; the runner started, the
// round overhead calibrated while no candidate code exists, and the candidate loaded.
#include <algorithm>

#include "core/files.h"
#include "core/time.h"
#include "evaluator/evaluation_session.h"
#include "evaluator/kernelbench/static_check.h"
#include "sandbox/leftovers.h"

namespace kf::eval {

namespace {

// The harness failed: the verdict is final, and says so (never a verdict on the candidate).
bool harness_error(Verdict& v, const std::string& code, const std::string& detail) {
  judge_harness_failure(v, {code, detail});
  return false;
}

}  // namespace

bool Evaluator::Impl::set_up(EvaluationSession& s) {
  Verdict& v = s.verdict;
  v.problem = s.problem;
  v.backend = to_string(opt.backend);
  v.candidate_kind = to_string(s.compiled.kind);
  v.compile_s = s.compiled.compile_s;
  v.compiler_output = s.compiled.compiler_output;
  if (s.compiled.cache_hit) v.flags.push_back("compile_cache_hit");
  // Correct until a reason says otherwise: the judge's finishing rule decides from the reasons (judgement.cpp).
  v.kind = VerdictKind::correct;
  v.checks = {{"trials", nlohmann::json::array()},
              {"precision", opt.precision},
              {"tolerances", tolerances_json()},
              {"reduced_precision_allowed", opt.allow_reduced_precision}};
  nlohmann::json loaded;
  if (!load_problem(s, loaded)) return false;
  RunnerLaunch launch;
  if (!prepare_job(s, loaded, launch)) return false;
  return start_runner(s, launch);
}

bool Evaluator::Impl::load_problem(EvaluationSession& s, nlohmann::json& loaded) {
  Verdict& v = s.verdict;
  auto l = load(s.problem, s.compiled.kind);
  s.phase_done("load");
  if (!l.ok())
    return harness_error(v, l.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                         l.error().message);
  if (s.kernelbench) {
    v.checks["static"] = s.compiled.static_findings;
    v.checks["build"] = s.compiled.build_log;
    // The torch-fallback rule needs the reference's work: decided here, before anything of the solution runs.
    auto work = problem_reference_work(s.problem);
    if (work.ok()) {
      v.checks["static"]["reference_ops"] = work->ops;
      v.checks["static"]["reference_units"] = work->units;
      kernelbench::Coverage coverage;
      auto r = kernelbench::judge_torch_fallback(s.compiled.static_findings, *work, &coverage);
      if (!r.empty()) {
        v.reasons = r;
        return false;
      }
      // Partial replacement (KernelBench allows it): what PyTorch still does of the reference's work.
      v.checks["static"]["coverage"] = coverage.to_json();
      if (coverage.partial()) {
        v.flags.push_back("torch_compute_in_forward");
        v.checks["static"]["torch_compute"] = coverage.torch;
      }
    } else {
      v.checks["static"]["reference_ops_error"] = work.error().message;
    }
  }
  v.checks["input_generator"] = (*l)["input_generator"];
  for (const char* role : {"inputs", "outputs"})
    for (const auto& spec : (*l)[role]) s.varying_shapes = s.varying_shapes || spec.contains("varying");
  loaded = std::move(*l);
  return true;
}

bool Evaluator::Impl::prepare_job(EvaluationSession& s, const nlohmann::json& loaded, RunnerLaunch& launch) {
  Verdict& v = s.verdict;
  auto folder = sandbox::make_owned_folder(opt.work_root, "kforge-eval");
  if (!folder) return harness_error(v, "harness.work_root", folder.error().message);
  s.job.dir = *folder;
  s.job.release = [this] { (void)ask({{"op", "release"}}); };
  const std::string& job_dir = s.job.dir;

  // Every seed this evaluation will prepare, so that buffers fit the largest trial of a problem whose
  // shapes depend on the seed (the order of the trials: trials.cpp, revalidation.cpp).
  s.seed = trial_seed();
  v.checks["seed"] = s.seed;
  for (int k = 0; k < opt.trials; ++k) s.seeds.push_back(s.seed + static_cast<uint64_t>(k));
  s.seeds.push_back(s.seed + 1000 + static_cast<uint64_t>(opt.trials));
  s.seeds.push_back(s.seed + 500);  // the precision trial
  if (opt.time_candidate) {
    auto pl = plan();
    if (!pl.ok())
      return harness_error(v, pl.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                           pl.error().message);
    s.plan = *pl;
    v.checks["timing"]["slots"] = pl->max_slots;
    v.checks["timing"]["repeatable_inputs"] = pl->repeatable_inputs;
    v.checks["timing"]["inputs_repeated"] = pl->inputs_repeated;
    v.checks["timing"]["repeated_inputs"] = pl->repeated_inputs;
  }
  auto setup = ask({{"op", "setup"}, {"dir", job_dir}, {"seeds", s.seeds}, {"slots", s.plan ? s.plan->max_slots : 1}});
  if (!setup.ok()) return harness_error(v, "harness.oracle", setup.error().message);
  // The previous candidate's runner must be gone from the device before this one runs (device_check.h).
  if (!runner_pids.empty() || !runner_tree_empty) {
    auto dc = check_device();
    if (!dc.ok()) return harness_error(v, "harness.oracle", dc.error().message);
    v.checks["device_before"] = dc->record;
    if (dc->clean == false)
      return harness_error(v, "harness.device_not_clean",
                           "a previous candidate's runner still holds the device (processes, contexts or memory): " +
                               dc->record.dump());
  }
  auto l = runner_launch(job_dir, s.compiled, loaded, (*setup)["buffers"]);
  if (!l.ok()) return harness_error(v, l.error().code, l.error().message);
  if (auto st = write_file_atomic(job_dir + "/job.json", l->job.dump()); !st.ok())
    return harness_error(v, "harness.job", st.error().message);
  launch = std::move(*l);
  return true;
}

bool Evaluator::Impl::start_runner(EvaluationSession& s, const RunnerLaunch& launch) {
  Verdict& v = s.verdict;
  const bool kb = s.kernelbench;
  const double startup_limit_s = kb ? kKernelbenchStartupLimitS : kStartupLimitS;
  if (kb) {
    s.first_round_limit_s = kKernelbenchFirstCallLimitS;
    v.checks["startup_limit_s"] = startup_limit_s;
    v.checks["first_call_limit_s"] = kKernelbenchFirstCallLimitS;
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
  v.checks["call_limit_s"] = s.call_limit_s;
  // The replayer of a solution the static check cannot attribute starts now: its python and torch load while the
  // runner's do (replay_attribution.cpp). Only load_inline extensions are replayed (not Triton launches).
  if (kb && !s.compiled.extensions.empty() && !statically_attributed(s.compiled))
    s.replayer = start_replayer(s.compiled, launch);
  // A kernelbench runner's start-up (python, torch, CUDA) is not counted against --timeout.
  const double lifetime_s = opt.runner_timeout_s + (kb ? startup_limit_s : 0.0);
  if (auto st = s.runner.start(launch.command, s.job.dir, launch.env, now_s() + lifetime_s, launch.confinement);
      !st.ok())
    return harness_error(v, "harness.runner", st.error().message);
  // Start-up: "mapped" (buffers mapped, no candidate code yet: the round overhead is measured now), then on
  // "load" the line "loading" (a failure before it is the harness's) and "ready" (from here on the runner
  // may speak for the candidate).
  auto mapped = s.runner.exchange(nullptr, now_s() + startup_limit_s);
  bool up = !runner_failed(s, mapped, "start-up");
  if (up && s.plan) up = calibrate_rounds(s, *s.plan);
  if (up) {
    s.runner.thaw();
    auto loading = s.runner.exchange(nlohmann::json{{"op", "load"}}, now_s() + startup_limit_s);
    up = !runner_failed(s, loading, "start-up");
  }
  if (up) {
    s.loaded = true;
    const std::string call_limit_text = s.call_limit_text;
    s.call_limit_text = "the start-up limit of " + std::to_string(static_cast<int>(startup_limit_s)) + " s";
    auto ready = s.runner.exchange(nullptr, now_s() + startup_limit_s);
    up = !runner_failed(s, ready, "loading the candidate");
    s.call_limit_text = call_limit_text;
    if (up && !s.runner.freeze()) s.freeze_failed = true;
  }
  s.phase_done("setup");
  // A runner that failed here was judged (runner_failed): the evaluation goes on only to end it.
  s.runner_ready = s.going_on = up;
  return true;
}

}  // namespace kf::eval
