#pragma once
// The kernel classification rules (configs/kernel-classes.json): an ordered list of regular expressions on
// demangled kernel names, first match wins, each naming a class; classes carry a tier and the campaign
// problem categories that can replace them (used by the projection).
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"

namespace kf::profiler {

enum class Tier { core, vendor, not_addressable };
const char* tier_name(Tier tier);  // "core", "vendor", "not_addressable"

struct KernelClass {
  std::string name;
  Tier tier = Tier::core;
  std::vector<std::string> categories;  // campaign problem categories whose kernels could replace this class
  std::string description;
};

struct Classification {
  std::string class_name;
  Tier tier = Tier::core;
};

class KernelRules {
 public:
  // Parses and validates the rule file's JSON text; `origin` names it in error messages.
  static Result<KernelRules> parse(const std::string& json_text, const std::string& origin);
  static Result<KernelRules> load(const std::string& path);

  // First matching rule wins; names no rule matches fall into the default class. Results are cached per name.
  Classification classify(const std::string& name) const;

  const std::vector<KernelClass>& classes() const { return classes_; }
  const KernelClass* find_class(const std::string& name) const;
  const std::string& default_class() const { return default_class_; }

 private:
  struct Rule {
    std::regex pattern;
    std::string source;
    std::string class_name;
    Tier tier = Tier::core;
  };
  std::vector<KernelClass> classes_;
  std::vector<Rule> rules_;
  std::string default_class_;
  mutable std::unordered_map<std::string, Classification> cache_;
};

}  // namespace kf::profiler
