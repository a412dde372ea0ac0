// The judgement: the last phase of every evaluation, and the only way out of one. The judge's finishing rule
// (finalize, evaluator/judge.h) makes the verdict from the reasons the phases collected; then the text from
// the candidate's side is cleaned and the evaluation's time recorded. A candidate that did not build never
// reaches the phases: it keeps the compiler's verdict.
#include "core/time.h"
#include "evaluator/evaluation_context.h"
#include "evaluator/text_hygiene.h"

namespace kf::eval {

// Text from the candidate's side made safe for terminals, the corpus and models (docs/evaluator.md).
void clean_verdict(Verdict& v) {
  for (auto& r : v.reasons) r.detail = clean_text(r.detail, 4000);
  v.compiler_output = clean_text(v.compiler_output, 16384);
}

Verdict Evaluator::Impl::compile_failure(const std::string& problem, const Compiled& compiled) const {
  Verdict f = *compiled.failure;
  f.problem = problem;
  f.backend = to_string(opt.backend);
  f.candidate_kind = to_string(compiled.kind);
  f.compile_s = compiled.compile_s;
  f.flags.clear();
  if (compiled.cache_hit) f.flags.push_back("compile_cache_hit");
  clean_verdict(f);
  return f;
}

Verdict Evaluator::Impl::judge(EvaluationContext& s) {
  Verdict& v = s.verdict;
  finalize(v);
  clean_verdict(v);
  v.eval_s = now_s() - s.started_s;
  return std::move(v);
}

}  // namespace kf::eval
