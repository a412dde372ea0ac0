#pragma once
// The judge a campaign uses: compiles on a shared CPU pool (any number at a time, up to compile_jobs),
// evaluations on a pool of evaluators (one per GPU, or N on host), each judging one candidate at a time.
#include <semaphore>

#include "agent/campaign/loop.h"
#include "evaluator/pool.h"

namespace kf::agent {

corpus::EvaluatorRef evaluator_ref(const eval::EvaluatorSlot& slot);

class PoolJudge : public KernelJudge {
 public:
  PoolJudge(eval::EvaluatorPool& pool, int compile_jobs) : pool_(pool), compile_slots_(compile_jobs) {}
  Judgment judge(const ProblemInfo& problem, const std::string& source_path) override;
  // feedback.ncu: each kernel judged correct is profiled with Nsight Compute at `ncu` afterwards, on the same
  // evaluator, and its verdict carries the figures (checks.profile) or, when profiling failed,
  // checks.profile_error; the verdict itself never changes. "" (the default): no profiling.
  void profile_correct_kernels(std::string ncu) { ncu_ = std::move(ncu); }

 private:
  eval::EvaluatorPool& pool_;
  std::string ncu_;
  std::counting_semaphore<1024> compile_slots_;
};

}  // namespace kf::agent
