#pragma once
// Turns an evaluation outcome into the next user message, through the prompt templates.
#include <string>

#include <nlohmann/json.hpp>

#include "agent/prompt/prompt_templates.h"
#include "core/result.h"

namespace kf::agent {

// The verdict recorded for a reply that yielded no source: {"verdict": "no_code", "correct": false,
// "reasons": [{"code": "no_code.<failure>", "detail": message}], ...}.
nlohmann::json no_code_verdict(const std::string& failure, const std::string& message);

// Feedback for `verdict` (the JSON of `kforge eval --json`, or no_code_verdict()). The template is
// chosen by verdict.verdict; `code_label` is the fence label the first turn asked for.
Result<std::string> render_feedback(const PromptTemplates& templates, const nlohmann::json& verdict,
                                    const std::string& code_label);

// The correct template's variables (docs/campaigns.md, "Prompt templates"): time_ms, ref_time_ms, speedup and
// baseline (the primary baseline's), eager_/compile_ time_ms and speedup, speedups (one sentence over every
// baseline timed), roofline (the fraction of peak of the kernel and of each baseline), peak_fraction, bound_by.
TemplateVars correct_feedback_vars(const nlohmann::json& verdict);

// The first `max_lines` lines of compiler output, then a note of how many were left out.
std::string first_lines(const std::string& text, size_t max_lines);

}  // namespace kf::agent
