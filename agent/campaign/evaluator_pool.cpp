#include "agent/campaign/evaluator_pool.h"

namespace kf::agent {

corpus::EvaluatorRef evaluator_ref(const eval::EvaluatorSlot& slot) {
  corpus::EvaluatorRef r;
  r.slot = slot.slot;
  if (slot.gpu) {
    r.gpu_index = slot.gpu->index;
    r.gpu_name = slot.gpu->name;
    r.gpu_uuid = slot.gpu->uuid;
  }
  return r;
}

Judgment PoolJudge::judge(const ProblemInfo& problem, const std::string& source_path) {
  compile_slots_.acquire();
  // Compiling needs no GPU and is thread-safe; every evaluator shares the compile cache.
  eval::Compiled compiled = pool_.evaluator(0).compile(source_path);
  compile_slots_.release();
  if (!compiled.ok()) return {*compiled.failure, std::nullopt};
  auto lease = pool_.acquire();
  eval::Verdict v = lease.evaluator().evaluate(problem.path, compiled);
  if (!ncu_.empty() && v.correct()) {
    // After the verdict, outside its timed rounds; a failure leaves the feedback without the figures.
    auto profile = lease.evaluator().profile(problem.path, compiled, ncu_);
    if (profile)
      v.checks.profile = *profile;
    else
      v.checks.profile_error = profile.error().message.substr(0, 500);
  }
  return {std::move(v), evaluator_ref(lease.slot())};
}

}  // namespace kf::agent
