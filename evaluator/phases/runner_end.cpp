// The runner's end: a last look at its memory maps, the attribution trial of a kernelbench solution that the
// static check could not attribute (replay_attribution.cpp), then the runner ended and what is left of it
// recorded for the next evaluation's device check; last, whose work a kernelbench solution's outputs were.
#include <optional>

#include "evaluator/evaluation_context.h"

namespace kf::eval {

void Evaluator::Impl::end_runner(EvaluationContext& s, bool ran_through) {
  Verdict& v = s.verdict;
  if (s.runner_ready) {
    check_maps(s);
    // Attribution by replay: only for a solution correct so far that the static check could not attribute;
    // one more checked trial, its extension calls recorded.
    if (s.replayer && ran_through && v.reasons.empty()) s.recorded = record_trial(s);
  }
  s.runner.finish();
  runner_pids = s.runner.pids_seen();
  runner_tree_empty = s.runner.tree_empty();
  v.checks.runner_frozen_between_rounds = !s.freeze_failed;
  if (s.kernelbench) {
    v.checks.custom_kernel_calls = s.custom_kernel_calls;
    v.checks.helper_processes_ended = s.helpers_ended;
    // Whose work the outputs are: "trusted" when the static check proved that forward reaches nothing but the
    // solution's kernels, allocation, views and copies (and kforge read the kernels' extensions for torch
    // operators when it built them), or when the recorded extension calls, replayed without the solution's
    // Python, reproduce the checked outputs from the problem's inputs; else only the runner's in-process count
    // says kernels ran, and the report does not count the speedup as verified (docs/candidates.md, "Attribution").
    const nlohmann::json& f = s.compiled.static_findings;
    const auto a = f.is_object() && f.contains("attribution") ? f["attribution"] : nlohmann::json();
    const bool proved = statically_attributed(s.compiled) && s.custom_kernel_calls > 0;
    std::optional<ReplayOutcome> replay;
    if (s.recorded && v.reasons.empty()) {
      replay = replay_attribution(*s.replayer, s.job.dir, s.call_limit_s);
      v.checks.replay = ReplayFigures{replay->trusted, replay->calls, replay->seconds};
      if (replay->mismatch) v.flags.push_back("replay_mismatch");
    }
    const bool trusted = proved || (replay && replay->trusted);
    v.checks.attribution = trusted ? "trusted" : "in_process";
    if (trusted) v.checks.attribution_basis = proved ? "static" : "replay";
    if (!trusted) {
      nlohmann::json why =
          a.is_object() && a.contains("why") && a["why"].is_array() ? a["why"] : nlohmann::json::array();
      if (replay) why.push_back("replay: " + replay->why);
      if (!why.empty()) v.checks.attribution_why = why;
    }
    if (replay) s.phase_done("replay");
  }
  if (s.replayer) {
    // The replayer ran the candidate's extensions on the device too: the next evaluation's clean-device check
    // looks for its processes as for the runner's.
    s.replayer->session.finish();
    runner_pids.insert(runner_pids.end(), s.replayer->session.pids_seen().begin(),
                       s.replayer->session.pids_seen().end());
    runner_tree_empty = runner_tree_empty && s.replayer->session.tree_empty();
    s.replayer.reset();
  }
  v.checks.runner_tree_empty = s.runner.tree_empty();
  if (!s.runner.tree_empty()) v.flags.push_back("runner_survivors_killed");
}

}  // namespace kf::eval
