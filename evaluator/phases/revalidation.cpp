// The re-validation phase: after the timing, the outputs are checked again (docs/evaluator.md, "Trials"). First
// on fresh inputs in the same buffers; then on trial 0's inputs with only a few elements changed, where a cache
// keyed on a sample of the inputs' contents replays a stale answer.
#include "evaluator/evaluation_context.h"

namespace kf::eval {

Next Evaluator::Impl::revalidate(EvaluationContext& s) {
  const int k = opt.trials + 1;
  auto r = one_trial(s, k, s.seed + 1000 + static_cast<uint64_t>(k - 1),
                     opt.trials < 4 ? "scaled_small" : kVariants[k % 5], "re-validation after timing");
  const bool passed = r && r->empty();
  // Its reasons, if any, are the verdict's; whether the evaluation goes on is decided by the one before.
  if (passed) one_trial(s, k + 1, s.seed, "sparse", "sparse re-validation (trial 0's inputs, a few elements changed)");
  s.phase_done("revalidation");
  return passed ? Next::go_on : Next::stop;
}

}  // namespace kf::eval
