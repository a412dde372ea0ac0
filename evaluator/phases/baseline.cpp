// The baseline phase, for a candidate correct so far and timed: its yardsticks (every baseline the options
// name, timed in the same session, and the roofline: yardsticks.cpp) and the physical floor of its time
// (bytes moved / the device's copy bandwidth). What fails here is a reason like any other: the judgement
// (judgement.cpp) makes the verdict from it.
#include "evaluator/evaluation_context.h"

namespace kf::eval {

void Evaluator::Impl::time_baselines(EvaluationContext& s) {
  Verdict& v = s.verdict;
  if (judged_verdict(v) != VerdictKind::correct || !s.plan || !v.time_ms) return;
  const int64_t bytes = s.timed_trial_bytes;
  v.checks.bytes_moved = bytes;
  // The seeds announced at setup: those whose shapes the timed rounds drew (docs/evaluator.md, "Yardsticks").
  measure_yardsticks(s.problem_key, v, *s.plan, s.kernelbench, s.seeds);
  s.phase_done("yardsticks");
  if (opt.backend != Backend::cuda) return;
  if (!bandwidth) {
    auto bw = ask({{"op", "bandwidth"}});
    if (bw.ok() && (*bw)["gbps"].is_number()) bandwidth = (*bw)["gbps"].get<double>();
  }
  if (!bandwidth) return;
  double floor_ms = 0;
  auto r = judge_bandwidth_floor(*v.time_ms, bytes, *bandwidth, &floor_ms);
  v.checks.timing_record().copy_bandwidth_gbps = *bandwidth;
  v.checks.timing_record().floor_ms = floor_ms;
  if (r) v.reasons.push_back(*r);
}

}  // namespace kf::eval
