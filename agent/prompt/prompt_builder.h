#pragma once
// What the model sees, assembled in one place: the system prompt, the first turn of a (problem,
// configuration) and the feedback after each attempt. The texts are templates (prompts/, overridable per
// configuration: prompt_templates.h) chosen by the candidate format (candidate_format.h); this builder
// fills their placeholders. What one call sends (system, first turn, then the kept attempts with their
// feedback) is conversation.h's build_messages; the source taken from a reply is extract.h's.
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "agent/prompt/candidate_format.h"
#include "agent/prompt/prompt_templates.h"
#include "core/result.h"
#include "verdict/verdict.h"

namespace kf::agent {

// The problem as the first turn shows it.
struct ProblemPrompt {
  std::string name;
  std::string source;     // the reference problem's text
  std::string signature;  // kf_forward only: the problem's exact C declaration
};

// What the first turn says of where candidates run and what they may use; kforge_h is kforge.h's text,
// shown to kf_forward candidates.
struct PromptSetting {
  TargetMachine machine;
  Allowances allowances;
  std::string kforge_h;
};

class PromptBuilder {
 public:
  PromptBuilder() = default;
  PromptBuilder(PromptTemplates templates, CandidateSpec candidate)
      : templates_(std::move(templates)), candidate_(std::move(candidate)) {}

  Result<std::string> system_prompt() const;
  Result<std::string> first_turn(const ProblemPrompt& problem, const PromptSetting& setting) const;
  // The user message answering an attempt judged `verdict` (the evaluator's, or eval::Verdict::no_code);
  // feedback.h chooses the template and fills it.
  Result<std::string> feedback(const eval::Verdict& verdict) const;

  const PromptTemplates& templates() const { return templates_; }
  const CandidateSpec& candidate() const { return candidate_; }

 private:
  PromptTemplates templates_;
  CandidateSpec candidate_;
};

}  // namespace kf::agent
