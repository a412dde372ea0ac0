// One evaluation's session (evaluation_session.h): its clock and its job folder's end.
#include "evaluator/evaluation_session.h"

#include "core/time.h"
#include "sandbox/leftovers.h"

namespace kf::eval {

JobFolder::~JobFolder() {
  if (dir.empty()) return;
  if (release) release();
  sandbox::remove_owned_folder(dir);
}

EvaluationSession::EvaluationSession(const std::string& problem_path, const Compiled& candidate)
    : problem(problem_path),
      compiled(candidate),
      kernelbench(candidate.kind == CandidateKind::kernelbench),
      started_s(now_s()),
      phase_mark_s_(started_s) {}

void EvaluationSession::phase_done(const std::string& name) {
  const double t = now_s();
  verdict.checks["phases_s"][name] = t - phase_mark_s_;
  phase_mark_s_ = t;
}

}  // namespace kf::eval
