#include "agent/prompt/prompt_builder.h"

#include "agent/prompt/feedback.h"

namespace kf::agent {

Result<std::string> PromptBuilder::system_prompt() const {
  return templates_.render("system", {{"language", candidate_.language}});
}

Result<std::string> PromptBuilder::first_turn(const ProblemPrompt& problem, const PromptSetting& setting) const {
  TemplateVars vars = format_vars(candidate_, setting.machine, setting.allowances);
  vars["problem_name"] = problem.name;
  vars["problem_source"] = problem.source;
  if (candidate_.format == CandidateFormat::kf_forward) {
    vars["signature"] = problem.signature;
    vars["kforge_h"] = setting.kforge_h;
  }
  return templates_.render("first_turn", vars);
}

Result<std::string> PromptBuilder::feedback(const eval::Verdict& verdict) const {
  return render_feedback(templates_, verdict, candidate_.code_label);
}

}  // namespace kf::agent
