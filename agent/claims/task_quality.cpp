#include "agent/claims/task_quality.h"

#include <filesystem>

#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

using json = nlohmann::json;

// The checks of an audit's "degenerate" or "fooled" object that are true, as "kforge, allclose@1e-2".
std::string true_checks(const json& p, const char* key) {
  std::string out;
  if (!p.contains(key) || !p[key].is_object()) return out;
  for (const auto& [check, v] : p[key].items())
    if (v.is_boolean() && v.get<bool>()) out += (out.empty() ? "" : ", ") + check;
  return out;
}

}  // namespace

Result<ProblemAudit> ProblemAudit::parse(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("problems") || !doc["problems"].is_array())
    return make_error("import.audit",
                      origin + " has no \"problems\" list: it is not the JSON of `kforge audit --json`");
  ProblemAudit a;
  a.origin_ = origin;
  for (const auto& p : doc["problems"]) {
    if (!p.is_object() || !p.contains("problem") || !p["problem"].is_string()) continue;
    if (p.contains("error") && !p["error"].is_null()) continue;  // not audited
    ++a.audited_;
    std::optional<TaskQuality> q;
    if (auto d = true_checks(p, "degenerate"); !d.empty())
      q = TaskQuality{"degenerate", "degenerate for " + d};
    else if (auto f = true_checks(p, "fooled"); !f.empty())
      q = TaskQuality{"fooled", "a wrong trivial output passes " + f};
    const std::string path = fs::absolute(p["problem"].get<std::string>()).lexically_normal().string();
    a.by_path_[path] = q;
    const std::string name =
        p.contains("name") && p["name"].is_string() ? p["name"].get<std::string>() : fs::path(path).stem().string();
    a.by_name_[name] = q;
    ++a.name_count_[name];
  }
  return a;
}

Result<ProblemAudit> ProblemAudit::load(const std::string& file) {
  auto text = read_file(file);
  if (!text) return make_error("import.audit", "--audit: " + text.error().message);
  auto doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return make_error("import.audit", "--audit: " + file + " is not JSON");
  return parse(doc, fs::absolute(file).lexically_normal().string());
}

std::optional<TaskQuality> ProblemAudit::find(const std::string& problem_path, const std::string& name) const {
  if (auto it = by_path_.find(fs::absolute(problem_path).lexically_normal().string()); it != by_path_.end())
    return it->second;
  if (auto it = name_count_.find(name); it != name_count_.end() && it->second == 1) return by_name_.at(name);
  return std::nullopt;
}

}  // namespace kf::agent
