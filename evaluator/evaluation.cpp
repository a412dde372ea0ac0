// One candidate's evaluation (Evaluator::Impl::evaluate): correctness trials on every input set, the
// judge's comparisons, the runner's and oracle's failures, then the timing (timed_rounds.cpp).
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/child_process.h"
#include "core/data_dir.h"
#include "core/files.h"
#include "core/log.h"
#include "core/time.h"
#include "evaluator/evaluator_impl.h"
#include "evaluator/kernelbench/static_check.h"
#include "evaluator/text_hygiene.h"
#include "sandbox/seccomp.h"

namespace fs = std::filesystem;

namespace kf::eval {

// Text from the candidate's side made safe for terminals, the corpus and models (docs/evaluator.md).
void clean_verdict(Verdict& v) {
  for (auto& r : v.reasons) r.detail = clean_text(r.detail, 4000);
  v.compiler_output = clean_text(v.compiler_output, 16384);
}

OutputStats stats_from(const nlohmann::json& j) {
  OutputStats s;
  s.numel = j.value("numel", int64_t{0});
  s.floating = j.value("floating", true);
  s.rel_l2 = j["rel_l2"].is_number() ? j["rel_l2"].get<double>() : 1e308;
  s.max_abs = j["max_abs"].is_number() ? j["max_abs"].get<double>() : 1e308;
  s.ref_rms = j.value("ref_rms", 0.0);
  s.violations = j.value("violations", int64_t{0});
  s.first_violations = j.value("first_violations", std::vector<int64_t>{});
  s.nan_inf_mismatch = j.value("nan_inf_mismatch", int64_t{0});
  s.unwritten = j.value("unwritten", int64_t{0});
  s.first_unwritten = j.value("first_unwritten", std::vector<int64_t>{});
  s.mismatched_exact = j.value("mismatched_exact", int64_t{0});
  return s;
}

bool Evaluator::Impl::runner_failed(Verdict& v, Session& s, const RunnerEnd& e, const std::string& during) {
  // The reply is the candidate's to write: fields are read by type, never with a throwing accessor.
  if (e.kind == RunnerEnd::Kind::reply) {
    auto ok = e.reply.find("ok");
    if (ok != e.reply.end() && ok->is_boolean() && ok->get<bool>()) return false;
  }
  std::string limit = e.lifetime_limit ? "the runner's lifetime limit of " +
                                             std::to_string(static_cast<int>(opt.runner_timeout_s)) + " s"
                                       : s.call_limit_text;
  judge_runner_failure(v, e, s.loaded, during, limit);
  if (e.kind == RunnerEnd::Kind::timeout) v.checks["limit_hit"] = e.lifetime_limit ? "lifetime" : "call";
  return true;
}

bool Evaluator::Impl::oracle_failed(Verdict& v, const Error& e) {
  if (e.code == "oracle.candidate") {
    // The runner tampered with a shared buffer: the candidate's doing, judged against it.
    v.reasons.push_back({"rejected.buffer_tampered", e.message});
    return true;
  }
  v.kind = VerdictKind::harness_error;
  v.reasons.push_back({e.code == "oracle.problem" ? "problem.invalid" : "harness.oracle", e.message});
  return true;
}

void Evaluator::Impl::check_maps(Verdict& v, Session& s) {
  // torch itself maps cuBLAS and cuDNN into a kernelbench runner; the torch-fallback checks take this one's place.
  if (opt.allow_vendor_libs || s.kernelbench) return;
  for (const auto& name : vendor_libraries_mapped(s.runner.maps())) {
    if (!s.vendors_seen.insert(name).second) continue;
    v.reasons.push_back({"rejected.vendor_library",
                         "the runner had " + name + " mapped into its memory after the candidate's calls (loaded at "
                         "run time, e.g. with dlopen); vendor libraries are not allowed here (--allow-vendor-libs)"});
  }
}

bool Evaluator::Impl::no_custom_kernel(Verdict& v, Session& s, const RunnerEnd& e, const std::string& during) {
  if (!s.kernelbench) return false;
  // The runner's count is the candidate's to forge: only its absence is believed (evidence against).
  auto it = e.reply.find("custom_kernel_calls");
  const int64_t calls = it != e.reply.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  if (calls > 0) {
    s.custom_kernel_calls += calls;
    return false;
  }
  v.reasons.push_back({"rejected.torch_fallback",
                       "no kernel of the solution's own ran during " + during +
                           " (no call into a load_inline extension, no Triton launch): ModelNew.forward's result came "
                           "from PyTorch operators or from a cache"});
  return true;
}

Result<std::vector<std::string>> Evaluator::Impl::problem_reference_ops(const std::string& problem) {
  if (auto it = reference_ops.find(problem_key); it != reference_ops.end()) return it->second;
  auto* sc = get_solution_compiler();
  if (!sc) return make_error("harness.gpu_arch", compiler_setup_error);
  auto env = sc->python_env();
  if (!env.ok()) return env.error();
  auto text = read_file(problem);
  if (!text.ok()) return text.error();
  auto found = kernelbench::run_static_check(*env, "problem", *text);
  if (!found.ok()) return found.error();
  std::vector<std::string> ops;
  for (const auto& op : found->value("reference_ops", nlohmann::json::array()))
    if (op.is_string()) ops.push_back(op.get<std::string>());
  reference_ops[problem_key] = ops;
  return ops;
}

std::vector<Reason> Evaluator::Impl::judge_comparison(Verdict& v, const nlohmann::json& cmp, int trial,
                                                      const std::string& label, nlohmann::json* record_out) {
  nlohmann::json record{{"trial", trial}, {"label", label}, {"seed", cmp.value("seed", nlohmann::json())}, {"variant", cmp["variant"]}};
  if (varying_shapes) record["shapes"] = trial_shapes;
  record["outputs"] = nlohmann::json::array();
  std::vector<Reason> reasons;
  std::vector<std::string> degenerate;
  for (const auto& o : cmp["outputs"]) {
    std::string where = o.value("name", "output") + " (" + label + ", " + cmp["variant"].get<std::string>() + ")";
    std::string dtype = o.value("dtype", "float32");
    OutputStats st = stats_from(o["stats"]);
    auto r = judge_output(where, dtype, st);
    std::vector<TrivialStats> triv;
    nlohmann::json trivj = nlohmann::json::object();
    for (const auto& t : o["trivial"]) {
      TrivialStats ts{t.value("name", ""), stats_from(t["stats"]),
                      t["distance"].is_number() ? t["distance"].get<double>() : 1e308};
      trivj[ts.name] = {{"rel_l2", ts.stats.rel_l2}, {"distance", ts.distance_to_candidate}};
      const std::string key = o.value("name", "") + ":" + ts.name;
      if (trial == 0 && trivial_passes(dtype, ts.stats)) base_degenerate.insert(key);
      // The sparse trial changes a few elements of trial 0's inputs: a trivial output that is right on
      // trial 0 is nearly right there too, so it cannot be held against the candidate on that trial.
      if (cmp["variant"] == "sparse" && base_degenerate.count(key)) continue;
      triv.push_back(ts);
    }
    auto nt = judge_non_trivial(where, dtype, st, triv, &degenerate);
    // Precision on these very inputs (fp32 outputs with a float64 reference): a candidate that tells the
    // precision trial from the others gains nothing. Only for outputs that pass otherwise.
    nlohmann::json precision;
    if (auto p = o.find("precision"); p != o.end() && p->is_object() && (*p)["f64_rel_l2"].is_number()) {
      PrecisionStats ps{(*p)["f64_rel_l2"].get<double>(), p->value("ref_f64_rel_l2", 0.0)};
      precision = {{"error", ps.error}, {"ref_error", ps.ref_error}, {"ratio", precision_ratio(ps)}};
      if (r.empty() && nt.empty()) {
        if (auto pr = judge_precision(where, ps)) {
          if (!opt.allow_reduced_precision) r.push_back(*pr);
          else if (std::find(v.flags.begin(), v.flags.end(), "reduced_precision") == v.flags.end())
            v.flags.push_back("reduced_precision");
        }
      }
    }
    // A candidate that IS a trivial output is named as such first.
    reasons.insert(reasons.end(), nt.begin(), nt.end());
    reasons.insert(reasons.end(), r.begin(), r.end());
    double coverage = st.numel ? 1.0 - static_cast<double>(st.unwritten) / static_cast<double>(st.numel) : 1.0;
    record["outputs"].push_back({{"name", o.value("name", "")},
                                 {"dtype", dtype},
                                 {"rel_l2", st.rel_l2},
                                 {"max_abs", st.max_abs},
                                 {"ref_rms", st.ref_rms},
                                 {"violations", st.violations},
                                 {"nan_inf_mismatch", st.nan_inf_mismatch},
                                 {"unwritten", st.unwritten},
                                 {"mismatched_exact", st.mismatched_exact},
                                 {"coverage", coverage},
                                 {"trivial", trivj}});
    if (!precision.is_null()) record["outputs"].back()["precision"] = precision;
  }
  for (const auto& m : cmp["inputs_modified"]) {
    reasons.push_back({"rejected.input_modified",
                       "input '" + m.value("name", "") + "' was modified by the candidate (" +
                           std::to_string(m.value("changed", int64_t{0})) + " of " +
                           std::to_string(m.value("numel", int64_t{0})) + " elements, first at flat index " +
                           std::to_string(m.value("first", int64_t{0})) + ") during " + label});
  }
  record["inputs_modified"] = cmp["inputs_modified"];
  for (const auto& d : degenerate) {
    if (std::find(v.flags.begin(), v.flags.end(), "degenerate_problem") == v.flags.end())
      v.flags.push_back("degenerate_problem");
    v.checks["degenerate"].push_back(d + " passes on its own");
  }
  if (record_out) *record_out = std::move(record);
  else v.checks["trials"].push_back(record);
  return reasons;
}

std::optional<std::vector<Reason>> Evaluator::Impl::one_trial(Verdict& v, Session& s, int trial, uint64_t seed,
                                                              const std::string& variant, const std::string& label,
                                                              bool hold) {
  auto prep = ask({{"op", "prepare"}, {"seed", seed}, {"variant", variant}});
  if (!prep.ok()) {
    oracle_failed(v, prep.error());
    return std::nullopt;
  }
  if ((*prep)["variant"] == "skipped") {
    v.checks["trials"].push_back({{"trial", trial}, {"label", label}, {"skipped", "its inputs make the reference non-finite"}});
    return std::vector<Reason>{};
  }
  trial_shapes = (*prep)["shapes"];
  trial_bytes = prep->value("bytes", int64_t{0});
  double ms = 0;
  auto e = round(s, nlohmann::json::array({0}), nlohmann::json::array({trial_shapes}), &ms);
  if (runner_failed(v, s, e, label)) return std::nullopt;
  check_maps(v, s);
  if (no_custom_kernel(v, s, e, label)) return std::nullopt;
  auto cmp = ask({{"op", "compare"}, {"tolerances", tolerances_json()}});
  if (!cmp.ok()) {
    oracle_failed(v, cmp.error());
    return std::nullopt;
  }
  auto reasons = judge_comparison(v, *cmp, trial, label);
  v.checks["trials"].back()["call_ms"] = ms;
  if (!hold) v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
  return reasons;
}

Verdict Evaluator::Impl::evaluate(const std::string& problem, const Compiled& compiled) {
  double t0 = now_s();
  base_degenerate.clear();
  Verdict v;
  v.problem = problem;
  v.backend = to_string(opt.backend);
  v.candidate_kind = to_string(compiled.kind);
  const bool kb = compiled.kind == CandidateKind::kernelbench;
  v.compile_s = compiled.compile_s;
  v.compiler_output = compiled.compiler_output;
  if (compiled.cache_hit) v.flags.push_back("compile_cache_hit");
  if (!compiled.ok()) {
    Verdict f = *compiled.failure;
    f.problem = problem;
    f.backend = v.backend;
    f.candidate_kind = v.candidate_kind;
    f.compile_s = compiled.compile_s;
    f.flags = v.flags;
    clean_verdict(f);
    return f;
  }
  v.kind = VerdictKind::correct;
  v.checks = {{"trials", nlohmann::json::array()},
              {"precision", opt.precision},
              {"tolerances", tolerances_json()},
              {"reduced_precision_allowed", opt.allow_reduced_precision}};

  auto harness = [&](const std::string& code, const std::string& detail) {
    v.kind = VerdictKind::harness_error;
    v.reasons.push_back({code, detail});
    v.eval_s = now_s() - t0;
    clean_verdict(v);
    return v;
  };
  auto phase = [&, last = t0](const std::string& name) mutable {
    double t = now_s();
    v.checks["phases_s"][name] = t - last;
    last = t;
  };
  auto loaded = load(problem, compiled.kind);
  phase("load");
  if (!loaded.ok())
    return harness(loaded.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                   loaded.error().message);
  if (kb) {
    v.checks["static"] = compiled.static_findings;
    v.checks["build"] = compiled.build_log;
    // The torch-fallback rule needs the reference's operators: decided here, before anything of the solution runs.
    auto ops = problem_reference_ops(problem);
    if (ops.ok()) {
      v.checks["static"]["reference_ops"] = *ops;
      std::vector<std::string> partial;
      auto r = kernelbench::judge_torch_fallback(compiled.static_findings, *ops, &partial);
      if (!r.empty()) {
        v.reasons = r;
        finalize(v);
        clean_verdict(v);
        v.eval_s = now_s() - t0;
        return v;
      }
      if (!partial.empty()) {
        v.flags.push_back("torch_compute_in_forward");
        v.checks["static"]["torch_compute"] = partial;
      }
    } else {
      v.checks["static"]["reference_ops_error"] = ops.error().message;
    }
  }
  v.checks["input_generator"] = (*loaded)["input_generator"];
  varying_shapes = false;
  for (const char* role : {"inputs", "outputs"})
    for (const auto& spec : (*loaded)[role]) varying_shapes = varying_shapes || spec.contains("varying");

  auto folder = sandbox::make_owned_folder(opt.work_root, "kforge-eval");
  if (!folder) return harness("harness.work_root", folder.error().message);
  std::string job_dir = *folder;
  struct Cleanup {
    Impl* self;
    std::string dir;
    ~Cleanup() {
      (void)self->ask({{"op", "release"}});
      sandbox::remove_owned_folder(dir);
    }
  } cleanup{this, job_dir};

  // Every seed this evaluation will prepare, so that buffers fit the largest trial of a problem whose
  // shapes depend on the seed (the order of trials below).
  const uint64_t seed = trial_seed();
  v.checks["seed"] = seed;
  nlohmann::json seeds = nlohmann::json::array();
  for (int k = 0; k < opt.trials; ++k) seeds.push_back(seed + static_cast<uint64_t>(k));
  seeds.push_back(seed + 1000 + static_cast<uint64_t>(opt.trials));
  seeds.push_back(seed + 500);  // the precision trial
  std::optional<Plan> timing_plan;
  if (opt.time_candidate) {
    auto pl = plan();
    if (!pl.ok()) return harness(pl.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle", pl.error().message);
    timing_plan = *pl;
    v.checks["timing"]["slots"] = pl->max_slots;
    v.checks["timing"]["repeatable_inputs"] = pl->repeatable_inputs;
    v.checks["timing"]["inputs_repeated"] = pl->inputs_repeated;
    v.checks["timing"]["repeated_inputs"] = pl->repeated_inputs;
  }
  auto setup = ask({{"op", "setup"}, {"dir", job_dir}, {"seeds", seeds}, {"slots", timing_plan ? timing_plan->max_slots : 1}});
  if (!setup.ok()) return harness("harness.oracle", setup.error().message);
  // The previous candidate's runner must be gone from the device before this one runs (device_check.h).
  if (!runner_pids.empty() || !runner_tree_empty) {
    auto dc = check_device();
    if (!dc.ok()) return harness("harness.oracle", dc.error().message);
    v.checks["device_before"] = dc->record;
    if (dc->clean == false)
      return harness("harness.device_not_clean",
                     "a previous candidate's runner still holds the device (processes, contexts or memory): " +
                         dc->record.dump());
  }
  auto launch = runner_launch(job_dir, compiled, *loaded, (*setup)["buffers"]);
  if (!launch.ok()) return harness(launch.error().code, launch.error().message);
  if (auto st = write_file_atomic(job_dir + "/job.json", launch->job.dump()); !st.ok())
    return harness("harness.job", st.error().message);

  Session s;
  s.kernelbench = kb;
  const double startup_limit_s = kb ? kKernelbenchStartupLimitS : kStartupLimitS;
  if (kb) {
    s.first_round_limit_s = kKernelbenchFirstCallLimitS;
    v.checks["startup_limit_s"] = startup_limit_s;
    v.checks["first_call_limit_s"] = kKernelbenchFirstCallLimitS;
  }
  if (timing_plan) {
    s.call_limit_s = std::max(kCallLimitFloorS, kCallLimitFactor * timing_plan->call_ms / 1e3);
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s (" +
                        std::to_string(static_cast<int>(kCallLimitFactor)) + "x the reference's " +
                        std::to_string(timing_plan->call_ms) + " ms, at least " +
                        std::to_string(static_cast<int>(kCallLimitFloorS)) + " s)";
  } else {
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s";
  }
  v.checks["call_limit_s"] = s.call_limit_s;
  // The replayer of a solution the static check cannot attribute starts now: its python and torch load while the
  // runner's do (replay_attribution.cpp). Only load_inline extensions are replayed (not Triton launches).
  std::unique_ptr<Replayer> replayer;
  if (kb && !compiled.extensions.empty() && !statically_attributed(compiled))
    replayer = start_replayer(compiled, *launch);
  // A kernelbench runner's start-up (python, torch, CUDA) is not counted against --timeout.
  const double lifetime_s = opt.runner_timeout_s + (kb ? startup_limit_s : 0.0);
  if (auto st = s.runner.start(launch->command, job_dir, launch->env, now_s() + lifetime_s, launch->confinement);
      !st.ok())
    return harness("harness.runner", st.error().message);
  // Start-up: "mapped" (buffers mapped, no candidate code yet: the round overhead is measured now), then on
  // "load" the line "loading" (a failure before it is the harness's) and "ready" (from here on the runner
  // may speak for the candidate).
  auto mapped = s.runner.exchange(nullptr, now_s() + startup_limit_s);
  bool up = !runner_failed(v, s, mapped, "start-up");
  if (up && timing_plan) up = calibrate_rounds(v, s, *timing_plan);
  if (up) {
    s.runner.thaw();
    auto loading = s.runner.exchange(nlohmann::json{{"op", "load"}}, now_s() + startup_limit_s);
    up = !runner_failed(v, s, loading, "start-up");
  }
  if (up) {
    s.loaded = true;
    const std::string call_limit_text = s.call_limit_text;
    s.call_limit_text = "the start-up limit of " + std::to_string(static_cast<int>(startup_limit_s)) + " s";
    auto ready = s.runner.exchange(nullptr, now_s() + startup_limit_s);
    up = !runner_failed(v, s, ready, "loading the candidate");
    s.call_limit_text = call_limit_text;
    if (up && !s.runner.freeze()) s.freeze_failed = true;
  }
  phase("setup");
  int64_t timed_trial_bytes = 0;
  bool recorded = false;
  if (up) {
    bool ok = true;
    for (int k = 0; k < opt.trials && ok; ++k) {
      auto r = one_trial(v, s, k, seed + static_cast<uint64_t>(k), kVariants[k % 5], "trial " + std::to_string(k));
      ok = r && r->empty();
    }
    // fp32 problems are judged at fp32: zero-mean full-mantissa inputs expose TF32/fp16/bf16 operand rounding.
    if (ok && opt.precision == "fp32") {
      auto r = one_trial(v, s, opt.trials, seed + 500, "precision", "precision trial (zero-mean inputs, wide range)", true);
      ok = r.has_value();
      if (r && !r->empty()) {
        if (opt.allow_reduced_precision) {
          v.flags.push_back("reduced_precision");
        } else {
          if (r->front().code != "incorrect.reduced_precision")
            v.reasons.push_back({"incorrect.reduced_precision",
                                 "the candidate passes the regular trials but misses fp32's tolerance on zero-mean "
                                 "full-mantissa inputs (" + r->front().detail + "): reduced-precision arithmetic "
                                 "(TF32, fp16 or bf16 operands) on an fp32 problem; allowed only with "
                                 "--allow-reduced-precision"});
          v.reasons.insert(v.reasons.end(), r->begin(), r->end());
          ok = false;
        }
      }
    }
    phase("trials");
    if (ok && timing_plan) {
      timed_trial_bytes = trial_bytes;
      ok = timed_rounds(v, s, candidate_calls_per_round(v, s, *timing_plan));
      phase("timing");
      if (ok && v.reasons.empty()) {
        // Outputs re-validated after timing, with fresh inputs in the same buffers.
        int k = opt.trials + 1;
        auto r = one_trial(v, s, k, seed + 1000 + static_cast<uint64_t>(k - 1),
                           opt.trials < 4 ? "scaled_small" : kVariants[k % 5], "re-validation after timing");
        ok = r && r->empty();
        // Trial 0's inputs again with only a few elements changed: a cache keyed on a sample of the
        // inputs' contents replays a stale answer here.
        if (ok) one_trial(v, s, k + 1, seed, "sparse", "sparse re-validation (trial 0's inputs, a few elements changed)");
        phase("revalidation");
      }
    }
    check_maps(v, s);
    // Attribution by replay (replay_attribution.cpp): only for a solution correct so far that the static check
    // could not attribute; one more checked trial, its extension calls recorded.
    if (replayer && ok && v.reasons.empty()) recorded = record_trial(v, s, seed);
  }
  s.runner.finish();
  runner_pids = s.runner.pids_seen();
  runner_tree_empty = s.runner.tree_empty();
  v.checks["runner_frozen_between_rounds"] = !s.freeze_failed;
  if (kb) {
    v.checks["custom_kernel_calls"] = s.custom_kernel_calls;
    v.checks["helper_processes_ended"] = s.helpers_ended;
    // Whose work the outputs are: "trusted" when the static check proved that forward reaches nothing but the
    // solution's kernels, allocation, views and copies (and kforge read the kernels' extensions for torch
    // operators when it built them), or when the recorded extension calls, replayed without the solution's
    // Python, reproduce the checked outputs from the problem's inputs; else only the runner's in-process count
    // says kernels ran, and the report does not count the speedup as verified (docs/candidates.md, "Attribution").
    const nlohmann::json& f = compiled.static_findings;
    const auto a = f.is_object() && f.contains("attribution") ? f["attribution"] : nlohmann::json();
    const bool proved = statically_attributed(compiled) && s.custom_kernel_calls > 0;
    std::optional<ReplayOutcome> replay;
    if (recorded && v.reasons.empty()) {
      replay = replay_attribution(*replayer, job_dir, s.call_limit_s);
      v.checks["replay"] = {{"trusted", replay->trusted}, {"calls", replay->calls}, {"seconds", replay->seconds}};
      if (replay->mismatch) v.flags.push_back("replay_mismatch");
    }
    const bool trusted = proved || (replay && replay->trusted);
    v.checks["attribution"] = trusted ? "trusted" : "in_process";
    if (trusted) v.checks["attribution_basis"] = proved ? "static" : "replay";
    if (!trusted) {
      nlohmann::json why = a.is_object() && a.contains("why") && a["why"].is_array() ? a["why"] : nlohmann::json::array();
      if (replay) why.push_back("replay: " + replay->why);
      if (!why.empty()) v.checks["attribution_why"] = why;
    }
    if (replay) phase("replay");
  }
  if (replayer) {
    // The replayer ran the candidate's extensions on the device too: the next evaluation's clean-device check
    // looks for its processes as for the runner's.
    replayer->session.finish();
    runner_pids.insert(runner_pids.end(), replayer->session.pids_seen().begin(), replayer->session.pids_seen().end());
    runner_tree_empty = runner_tree_empty && replayer->session.tree_empty();
    replayer.reset();
  }
  v.checks["runner_tree_empty"] = s.runner.tree_empty();
  if (!s.runner.tree_empty()) v.flags.push_back("runner_survivors_killed");

  finalize(v);
  if (v.correct() && timing_plan && v.time_ms) {
    const int64_t bytes = timed_trial_bytes;
    v.checks["bytes_moved"] = bytes;
    // The seeds announced at setup: those whose shapes the timed rounds drew (docs/evaluator.md, "Yardsticks").
    measure_yardsticks(v, *timing_plan, kb, seeds);
    phase("yardsticks");
    if (opt.backend == Backend::cuda) {
      if (!bandwidth) {
        auto bw = ask({{"op", "bandwidth"}});
        if (bw.ok() && (*bw)["gbps"].is_number()) bandwidth = (*bw)["gbps"].get<double>();
      }
      if (bandwidth) {
        double floor_ms = 0;
        auto r = judge_bandwidth_floor(*v.time_ms, bytes, *bandwidth, &floor_ms);
        v.checks["timing"]["copy_bandwidth_gbps"] = *bandwidth;
        v.checks["timing"]["floor_ms"] = floor_ms;
        if (r) {
          v.reasons.push_back(*r);
          finalize(v);
        }
      }
    }
  }
  clean_verdict(v);
  v.eval_s = now_s() - t0;
  return v;
}

}  // namespace kf::eval
