// One candidate's evaluation (Evaluator::Impl::evaluate) as the lists of its phases (evaluator/phases/), run in
// order on one EvaluationContext. Every way out goes through the judgement (judgement.cpp), except a candidate
// that did not build: it keeps the compiler's verdict.
#include "evaluator/evaluation_context.h"

namespace kf::eval {

std::vector<Evaluator::Impl::Phase> Evaluator::Impl::runner_phases() const {
  // Timing and re-validation only when the candidate is timed (the context then has a timing plan).
  if (!opt.time_candidate) return {&Impl::load_candidate, &Impl::run_trials};
  return {&Impl::load_candidate, &Impl::run_trials, &Impl::time_candidate, &Impl::revalidate};
}

Verdict Evaluator::Impl::evaluate(const std::string& problem, const Compiled& compiled) {
  if (!compiled.ok()) return compile_failure(problem, compiled);
  EvaluationContext s(problem, problem_key(problem, compiled.kind), compiled);
  begin_verdict(s);
  // Before the runner runs: a stop is final (a harness error, or the static torch-fallback rule).
  for (Phase phase : {&Impl::load_problem, &Impl::prepare_job, &Impl::start_runner})
    if ((this->*phase)(s) == Next::stop) return judge(s);
  // While the runner runs: each phase only while the candidate is still in the running; the runner is ended
  // whatever happened.
  bool ran_through = true;
  for (Phase phase : runner_phases()) {
    if ((this->*phase)(s) == Next::stop) {
      ran_through = false;
      break;
    }
  }
  end_runner(s, ran_through);
  time_baselines(s);
  return judge(s);
}

}  // namespace kf::eval
