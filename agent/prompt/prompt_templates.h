#pragma once
// Prompt templates: text files in prompts/ with named placeholders written {{name}}. A configuration's
// prompt_overrides (template name -> file) replaces any of them.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent {

using TemplateVars = std::map<std::string, std::string>;

// Replaces every {{name}} in `text` with vars[name]. A placeholder without a value, or an unclosed
// "{{", is an error naming the template and the placeholder (a typo in an override must not reach
// the model as literal braces). Values are inserted verbatim and never re-scanned.
Result<std::string> render_template(const std::string& text, const TemplateVars& vars,
                                    const std::string& template_name);

// The names of every template kforge uses, in a stable order.
const std::vector<std::string>& template_names();

class PromptTemplates {
 public:
  // Loads every template from `dir` (default: data_path("prompts")), each from the first of `layers`
  // (subfolders of `dir`, most specific first, "" = `dir` itself; a candidate format's,
  // agent/prompt/candidate_format.h) that holds it, then applies `overrides` ({"name": "path"}; relative
  // paths resolve against `base_dir`). Unknown override names are errors.
  static Result<PromptTemplates> load(const nlohmann::json& overrides = nlohmann::json::object(),
                                      const std::string& base_dir = ".", const std::string& dir = "",
                                      const std::vector<std::string>& layers = {""});

  Result<std::string> render(const std::string& name, const TemplateVars& vars) const;
  // sha256 over every template's text, so a run can detect a changed prompt.
  std::string fingerprint() const;

 private:
  std::map<std::string, std::string> texts_;
};

}  // namespace kf::agent
