#pragma once
// Task quality for claims: kforge's audit of the problems (`kforge audit --json-file FILE`, docs/audit.md)
// joined to imported claims, so a claimed speedup on a degenerate problem (a trivial output is itself a
// correct answer) or on one whose check a trivial output fools is marked where the claim is reported.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent {

struct TaskQuality {
  std::string kind;    // "degenerate" or "fooled"
  std::string detail;  // which checks ("degenerate for kforge, allclose@1e-2")
};

class ProblemAudit {
 public:
  // An audit's JSON (`kforge audit --json` / --json-file). An error when it is not one.
  static Result<ProblemAudit> parse(const nlohmann::json& doc, const std::string& origin);
  static Result<ProblemAudit> load(const std::string& file);
  // The audit's finding for a problem, by its file's absolute path, else by its name (file stem) when only one
  // audited problem has that name. nullopt: not audited, or audited and clean.
  std::optional<TaskQuality> find(const std::string& problem_path, const std::string& problem_name) const;
  // Problems audited (without error).
  size_t size() const { return audited_; }
  const std::string& origin() const { return origin_; }

 private:
  std::map<std::string, std::optional<TaskQuality>> by_path_;
  std::map<std::string, std::optional<TaskQuality>> by_name_;
  std::map<std::string, int> name_count_;
  size_t audited_ = 0;
  std::string origin_;
};

}  // namespace kf::agent
