#pragma once
// Turns an evaluation outcome into the next user message, through the prompt templates.
#include <string>

#include "agent/prompt/prompt_templates.h"
#include "core/result.h"
#include "verdict/verdict.h"

namespace kf::agent {

// Feedback for `verdict` (the evaluator's, or eval::Verdict::no_code for a reply without source). The template
// is chosen by the verdict's kind; `code_label` is the fence label the first turn asked for.
Result<std::string> render_feedback(const PromptTemplates& templates, const eval::Verdict& verdict,
                                    const std::string& code_label);

// The correct template's variables (docs/campaigns.md, "Prompt templates"): time_ms, ref_time_ms, speedup and
// baseline (the primary baseline's), eager_/compile_ time_ms and speedup, speedups (one sentence over every
// baseline timed), roofline (the fraction of peak of the kernel, with the GB/s and TFLOP/s it achieves, and of
// each baseline), peak_fraction, bound_by, achieved (GB/s and TFLOP/s), profile (Nsight Compute's figures on a
// line of their own when the verdict carries them, checks.profile; "" otherwise).
TemplateVars correct_feedback_vars(const eval::Verdict& verdict);

// The first `max_lines` lines of compiler output, then a note of how many were left out.
std::string first_lines(const std::string& text, size_t max_lines);

}  // namespace kf::agent
