#include "profiler/rules.h"

#include <nlohmann/json.hpp>

#include "core/files.h"

namespace kf::profiler {
namespace {

Result<Tier> parse_tier(const std::string& text, const std::string& where) {
  if (text == "core") return Tier::core;
  if (text == "vendor") return Tier::vendor;
  if (text == "not_addressable") return Tier::not_addressable;
  return make_error("rules.bad_tier",
                    where + ": tier \"" + text + "\" is not one of core, vendor, not_addressable; fix the rule file.");
}

}  // namespace

const char* tier_name(Tier tier) {
  switch (tier) {
    case Tier::core: return "core";
    case Tier::vendor: return "vendor";
    case Tier::not_addressable: return "not_addressable";
  }
  return "core";
}

Result<KernelRules> KernelRules::parse(const std::string& json_text, const std::string& origin) {
  const auto bad = [&](const std::string& what) {
    return make_error("rules.invalid", origin + ": " + what + ". See docs/profiler.md for the rule file format.");
  };
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  if (!doc.contains("classes") || !doc["classes"].is_array() || doc["classes"].empty())
    return bad("\"classes\" must be a non-empty array");
  if (!doc.contains("rules") || !doc["rules"].is_array()) return bad("\"rules\" must be an array");

  KernelRules out;
  for (size_t i = 0; i < doc["classes"].size(); ++i) {
    const auto& c = doc["classes"][i];
    const std::string where = "classes[" + std::to_string(i) + "]";
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("tier") ||
        !c["tier"].is_string())
      return bad(where + " needs string fields \"name\" and \"tier\"");
    KernelClass k;
    k.name = c["name"].get<std::string>();
    auto tier = parse_tier(c["tier"].get<std::string>(), origin + " " + where);
    if (!tier) return tier.error();
    k.tier = *tier;
    if (c.contains("categories")) {
      if (!c["categories"].is_array()) return bad(where + ".categories must be an array of strings");
      for (const auto& cat : c["categories"]) {
        if (!cat.is_string()) return bad(where + ".categories must be an array of strings");
        k.categories.push_back(cat.get<std::string>());
      }
    }
    if (c.contains("description") && c["description"].is_string()) k.description = c["description"];
    if (out.find_class(k.name) != nullptr) return bad("class \"" + k.name + "\" is defined twice");
    out.classes_.push_back(std::move(k));
  }

  out.default_class_ = doc.value("default_class", std::string("other"));
  if (out.find_class(out.default_class_) == nullptr)
    return bad("default_class \"" + out.default_class_ + "\" is not a defined class");

  for (size_t i = 0; i < doc["rules"].size(); ++i) {
    const auto& r = doc["rules"][i];
    const std::string where = "rules[" + std::to_string(i) + "]";
    if (!r.is_object() || !r.contains("match") || !r["match"].is_string() || !r.contains("class") ||
        !r["class"].is_string())
      return bad(where + " needs string fields \"match\" (a regular expression) and \"class\"");
    Rule rule;
    rule.source = r["match"].get<std::string>();
    rule.class_name = r["class"].get<std::string>();
    const KernelClass* k = out.find_class(rule.class_name);
    if (k == nullptr) return bad(where + " names class \"" + rule.class_name + "\", which is not defined");
    rule.tier = k->tier;
    if (r.contains("tier")) {
      if (!r["tier"].is_string()) return bad(where + ".tier must be a string");
      auto tier = parse_tier(r["tier"].get<std::string>(), origin + " " + where);
      if (!tier) return tier.error();
      rule.tier = *tier;
    }
    auto flags = std::regex::ECMAScript | std::regex::optimize;
    if (r.value("ignore_case", true)) flags |= std::regex::icase;
    try {
      rule.pattern = std::regex(rule.source, flags);
    } catch (const std::regex_error& e) {
      return bad(where + ".match \"" + rule.source + "\" is not a valid regular expression (" + e.what() + ")");
    }
    out.rules_.push_back(std::move(rule));
  }
  return out;
}

Result<KernelRules> KernelRules::load(const std::string& path) {
  auto text = read_file(path);
  if (!text) {
    return make_error("rules.unreadable", "cannot read the kernel class rules " + path + ": " + text.error().message +
                                              " Pass --rules FILE or set KFORGE_DATA_DIR.");
  }
  return parse(*text, path);
}

const KernelClass* KernelRules::find_class(const std::string& name) const {
  for (const auto& k : classes_) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

Classification KernelRules::classify(const std::string& name) const {
  if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  Classification result{default_class_, find_class(default_class_)->tier};
  for (const Rule& rule : rules_) {
    if (std::regex_search(name, rule.pattern)) {
      result = {rule.class_name, rule.tier};
      break;
    }
  }
  cache_.emplace(name, result);
  return result;
}

}  // namespace kf::profiler
