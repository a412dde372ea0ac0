// One evaluation's session (evaluation_context.h): its clock and its job folder's end.
#include "evaluator/evaluation_context.h"

#include "core/time.h"
#include "sandbox/leftovers.h"

namespace kf::eval {

JobFolder::~JobFolder() {
  if (dir.empty()) return;
  if (release) release();
  sandbox::remove_owned_folder(dir);
}

EvaluationContext::EvaluationContext(const std::string& problem_path, const std::string& key, const Compiled& candidate)
    : problem(problem_path),
      problem_key(key),
      compiled(candidate),
      kernelbench(candidate.kind == CandidateKind::kernelbench),
      started_s(now_s()),
      phase_mark_s_(started_s) {}

void EvaluationContext::phase_done(const std::string& name) {
  const double t = now_s();
  verdict.checks.phases_s[name] = t - phase_mark_s_;
  phase_mark_s_ = t;
}

}  // namespace kf::eval
