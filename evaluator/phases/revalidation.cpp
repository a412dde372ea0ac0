// The re-validation phase: after the timing, the outputs are checked again (docs/evaluator.md, "Trials"). First
// on fresh inputs in the same buffers; then on trial 0's inputs with only a few elements changed, where a cache
// keyed on a sample of the inputs' contents replays a stale answer.
#include "evaluator/evaluation_session.h"

namespace kf::eval {

void Evaluator::Impl::revalidate(EvaluationSession& s) {
  const int k = opt.trials + 1;
  auto r = one_trial(s, k, s.seed + 1000 + static_cast<uint64_t>(k - 1),
                     opt.trials < 4 ? "scaled_small" : kVariants[k % 5], "re-validation after timing");
  s.going_on = r && r->empty();
  // Its reasons, if any, are the verdict's; whether the evaluation goes on is decided by the one before.
  if (s.going_on)
    one_trial(s, k + 1, s.seed, "sparse", "sparse re-validation (trial 0's inputs, a few elements changed)");
  s.phase_done("revalidation");
}

}  // namespace kf::eval
