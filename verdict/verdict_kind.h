#pragma once
// What an evaluation concluded about a candidate, as one of a closed set (docs/evaluator.md, "Verdicts").
#include <optional>
#include <string>
#include <string_view>

namespace kf::eval {

enum class VerdictKind {
  correct,
  incorrect,
  compile_error,
  runtime_error,
  timeout,
  rejected,
  harness_error,  // kforge could not judge: never the candidate's fault
  no_code,        // the model's reply held no usable source (recorded by campaigns, never by the evaluator)
  unknown,        // read from a file: absent, or a name this kforge does not know
};

std::string to_string(VerdictKind kind);
// nullopt for a name that is not one of the kinds above (`unknown` is never parsed: it is what is left).
std::optional<VerdictKind> parse_verdict_kind(std::string_view name);

// The kind a recorded verdict reads as. `correct: true` decides correctness, as every kforge has counted it
// (corpora whose verdicts carry only that field read as they always did); otherwise the name decides, and a
// name that is absent, unknown, or "correct" without `correct: true` reads as `unknown`. The one rule every
// reader of recorded verdicts applies, the full parser and the corpus's fast scanner alike.
VerdictKind recorded_kind(const std::optional<std::string>& name, const std::optional<bool>& correct);

}  // namespace kf::eval
