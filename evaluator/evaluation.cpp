// One candidate's evaluation (Evaluator::Impl::evaluate) as the list of its phases (evaluator/phases/), and
// what every phase uses: the runner's and the oracle's failures judged, the runner's maps checked, the
// problem's reference operators.
#include <algorithm>

#include "core/files.h"
#include "evaluator/evaluation_session.h"
#include "evaluator/kernelbench/static_check.h"
#include "evaluator/text_hygiene.h"

namespace kf::eval {

// The phases in order, each in its own file under evaluator/phases/. Every way out goes through the judgement
// (phases/judgement.cpp), except a candidate that did not build: it keeps the compiler's verdict.
Verdict Evaluator::Impl::evaluate(const std::string& problem, const Compiled& compiled) {
  if (!compiled.ok()) return compile_failure(problem, compiled);
  EvaluationSession s(problem, compiled);
  // A harness error or the static torch-fallback rule in setup: nothing of the candidate ran, the verdict is final.
  if (!set_up(s)) return judge(s);
  // From here the runner runs: each phase goes on only while the candidate is still in the running, and the
  // runner is ended whatever happened.
  if (s.going_on) run_trials(s);
  if (s.going_on && s.plan) time_candidate(s);
  if (s.going_on && s.plan && s.verdict.reasons.empty()) revalidate(s);
  end_runner(s);
  if (judged_verdict(s.verdict) == VerdictKind::correct && s.plan && s.verdict.time_ms) time_baselines(s);
  return judge(s);
}

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

bool Evaluator::Impl::runner_failed(EvaluationSession& s, const RunnerEnd& e, const std::string& during) {
  // The reply is the candidate's to write: fields are read by type, never with a throwing accessor.
  if (e.kind == RunnerEnd::Kind::reply) {
    auto ok = e.reply.find("ok");
    if (ok != e.reply.end() && ok->is_boolean() && ok->get<bool>()) return false;
  }
  std::string limit = e.lifetime_limit ? "the runner's lifetime limit of " +
                                             std::to_string(static_cast<int>(opt.runner_timeout_s)) + " s"
                                       : s.call_limit_text;
  judge_runner_failure(s.verdict, e, s.loaded, during, limit);
  if (e.kind == RunnerEnd::Kind::timeout) s.verdict.checks["limit_hit"] = e.lifetime_limit ? "lifetime" : "call";
  return true;
}

bool Evaluator::Impl::oracle_failed(Verdict& v, const Error& e) {
  if (e.code == "oracle.candidate") {
    // The runner tampered with a shared buffer: the candidate's doing, judged against it.
    v.reasons.push_back({"rejected.buffer_tampered", e.message});
    return true;
  }
  judge_harness_failure(v, {e.code == "oracle.problem" ? "problem.invalid" : "harness.oracle", e.message});
  return true;
}

void Evaluator::Impl::check_maps(EvaluationSession& s) {
  // torch itself maps cuBLAS and cuDNN into a kernelbench runner; the torch-fallback checks take this one's place.
  if (opt.allow_vendor_libs || s.kernelbench) return;
  Verdict& v = s.verdict;
  for (const auto& name : vendor_libraries_mapped(s.runner.maps())) {
    if (!s.vendors_seen.insert(name).second) continue;
    v.reasons.push_back({"rejected.vendor_library",
                         "the runner had " + name + " mapped into its memory after the candidate's calls (loaded at "
                         "run time, e.g. with dlopen); vendor libraries are not allowed here (--allow-vendor-libs)"});
  }
}

bool Evaluator::Impl::no_custom_kernel(EvaluationSession& s, const RunnerEnd& e, const std::string& during) {
  if (!s.kernelbench) return false;
  // The runner's count is the candidate's to forge: only its absence is believed (evidence against).
  auto it = e.reply.find("custom_kernel_calls");
  const int64_t calls = it != e.reply.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  if (calls > 0) {
    s.custom_kernel_calls += calls;
    return false;
  }
  s.verdict.reasons.push_back(
      {"rejected.torch_fallback",
       "no kernel of the solution's own ran during " + during +
           " (no call into a load_inline extension, no Triton launch): ModelNew.forward's result came "
           "from PyTorch operators or from a cache"});
  return true;
}

Result<kernelbench::ReferenceWork> Evaluator::Impl::problem_reference_work(const std::string& problem) {
  if (auto it = reference_work.find(problem_key); it != reference_work.end()) return it->second;
  auto* sc = get_solution_compiler();
  if (!sc) return make_error("harness.gpu_arch", compiler_setup_error);
  auto env = sc->python_env();
  if (!env.ok()) return env.error();
  auto text = read_file(problem);
  if (!text.ok()) return text.error();
  auto found = kernelbench::run_static_check(*env, "problem", *text);
  if (!found.ok()) return found.error();
  return reference_work[problem_key] = kernelbench::ReferenceWork::from_findings(*found);
}

}  // namespace kf::eval
