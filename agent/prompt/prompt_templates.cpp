#include "agent/prompt/prompt_templates.h"

#include <filesystem>

#include "core/data_dir.h"
#include "core/files.h"
#include "core/hash.h"

namespace kf::agent {

Result<std::string> render_template(const std::string& text, const TemplateVars& vars,
                                    const std::string& template_name) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      out.append(text, pos, std::string::npos);
      return out;
    }
    out.append(text, pos, open - pos);
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos)
      return make_error("prompt.unclosed_placeholder",
                        "prompt template '" + template_name + "' has a '{{' without a closing '}}'; fix the template");
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      std::string known;
      for (const auto& [k, v] : vars) known += (known.empty() ? "" : ", ") + k;
      return make_error("prompt.unknown_placeholder",
                        "prompt template '" + template_name + "' uses placeholder {{" + name +
                            "}}, which has no value here; the available ones are: " + known);
    }
    out += it->second;
    pos = close + 2;
  }
}

const std::vector<std::string>& template_names() {
  static const std::vector<std::string> names = {"system",  "first_turn", "compile_error", "incorrect", "runtime_error",
                                                 "timeout", "rejected",   "correct",       "no_code"};
  return names;
}

Result<PromptTemplates> PromptTemplates::load(const nlohmann::json& overrides, const std::string& base_dir,
                                              const std::string& dir, const std::vector<std::string>& layers) {
  PromptTemplates t;
  const std::filesystem::path root = dir.empty() ? data_path("prompts") : dir;
  for (const auto& name : template_names()) {
    std::string searched;
    for (const auto& layer : layers) {
      const std::filesystem::path file = (layer.empty() ? root : root / layer) / (name + ".txt");
      if (!std::filesystem::exists(file)) {
        searched += (searched.empty() ? "" : ", ") + file.parent_path().string();
        continue;
      }
      auto text = read_file(file.string());
      if (!text)
        return make_error("prompt.unreadable", "prompt template " + file.string() + ": " + text.error().message);
      t.texts_[name] = std::move(*text);
      break;
    }
    if (!t.texts_.count(name))
      return make_error("prompt.missing", "prompt template '" + name + "' not found in " + searched +
                                              ": reinstall kforge or set KFORGE_DATA_DIR");
  }
  if (!overrides.is_null() && !overrides.is_object())
    return make_error("prompt.overrides", "prompt_overrides must be an object of template name -> file path");
  if (overrides.is_object()) {
    for (const auto& [name, path_json] : overrides.items()) {
      if (!t.texts_.count(name)) {
        std::string known;
        for (const auto& n : template_names()) known += (known.empty() ? "" : ", ") + n;
        return make_error("prompt.unknown_override",
                          "prompt_overrides names '" + name + "', which is not a template; known: " + known);
      }
      if (!path_json.is_string())
        return make_error("prompt.overrides", "prompt_overrides." + name + " must be a file path string");
      std::filesystem::path p = path_json.get<std::string>();
      if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
      auto text = read_file(p.string());
      if (!text)
        return make_error("prompt.override_missing", "prompt_overrides." + name + ": cannot read '" + p.string() + "'");
      t.texts_[name] = std::move(*text);
    }
  }
  return t;
}

Result<std::string> PromptTemplates::render(const std::string& name, const TemplateVars& vars) const {
  auto it = texts_.find(name);
  if (it == texts_.end()) return make_error("prompt.unknown", "no prompt template named '" + name + "'");
  auto text = render_template(it->second, vars, name);
  if (!text) return text;
  // Files end with a newline; messages should not.
  std::string s = std::move(*text);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string PromptTemplates::fingerprint() const {
  std::string all;
  for (const auto& [name, text] : texts_) all += name + "\n" + text + "\n\x1f";
  return sha256_hex(all);
}

}  // namespace kf::agent
