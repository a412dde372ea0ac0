// What every phase judges of the runner and the oracle after a round or a request: a runner that failed, an
// oracle request that failed, vendor libraries in the runner's maps, a kernelbench round without the
// solution's own kernels.
#include "evaluator/evaluation_context.h"

namespace kf::eval {

bool Evaluator::Impl::runner_failed(EvaluationContext& s, const RunnerEnd& e, const std::string& during) {
  // The reply is the candidate's to write: fields are read by type, never with a throwing accessor.
  if (e.kind == RunnerEnd::Kind::reply) {
    auto ok = e.reply.find("ok");
    if (ok != e.reply.end() && ok->is_boolean() && ok->get<bool>()) return false;
  }
  std::string limit = e.lifetime_limit ? "the runner's lifetime limit of " +
                                             std::to_string(static_cast<int>(opt.runner_timeout_s)) + " s"
                                       : s.call_limit_text;
  judge_runner_failure(s.verdict, e, s.loaded, during, limit);
  if (e.kind == RunnerEnd::Kind::timeout) s.verdict.checks.limit_hit = e.lifetime_limit ? "lifetime" : "call";
  return true;
}

void Evaluator::Impl::judge_oracle_failure(Verdict& v, const Error& e) {
  if (e.code == "oracle.candidate") {
    // The runner tampered with a shared buffer: the candidate's doing, judged against it.
    v.reasons.push_back({"rejected.buffer_tampered", e.message});
    return;
  }
  judge_harness_failure(v, {e.code == "oracle.problem" ? "problem.invalid" : "harness.oracle", e.message});
}

void Evaluator::Impl::check_maps(EvaluationContext& s) {
  // torch itself maps cuBLAS and cuDNN into a kernelbench runner; the torch-fallback checks take this one's place.
  if (opt.allow_vendor_libs || s.kernelbench) return;
  Verdict& v = s.verdict;
  for (const auto& name : vendor_libraries_mapped(s.runner.maps())) {
    if (!s.vendors_seen.insert(name).second) continue;
    v.reasons.push_back(
        {"rejected.vendor_library",
         "the runner had " + name +
             " mapped into its memory after the candidate's calls (loaded at "
             "run time, e.g. with dlopen); vendor libraries are not allowed here (--allow-vendor-libs)"});
  }
}

bool Evaluator::Impl::no_custom_kernel(EvaluationContext& s, const RunnerEnd& e, const std::string& during) {
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

}  // namespace kf::eval
