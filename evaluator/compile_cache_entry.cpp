#include "evaluator/compile_cache_entry.h"

#include "core/files.h"

namespace kf::eval {

namespace fs = std::filesystem;

namespace {

constexpr const char* kEntryFile = "result.json";

std::string string_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

nlohmann::json to_json(const CachedExtension& e) {
  return {{"name", e.name},           {"key", e.key},           {"library", e.library},
          {"cache_hit", e.cache_hit}, {"used_pch", e.used_pch}, {"seconds", e.seconds}};
}

nlohmann::json to_json(const std::vector<CachedExtension>& extensions) {
  auto a = nlohmann::json::array();
  for (const auto& e : extensions) a.push_back(to_json(e));
  return a;
}

nlohmann::json CompileCacheEntry::to_json() const {
  nlohmann::json j{{"status", failure ? to_string(failure->verdict) : "ok"}, {"output", output}};
  if (failure) {
    j["reasons"] = nlohmann::json::array();
    for (const auto& r : failure->reasons) j["reasons"].push_back({{"code", r.code}, {"detail", r.detail}});
  }
  if (used_pch) j["used_pch"] = true;
  if (!static_findings.is_null()) j["static"] = static_findings;
  if (!extensions.empty()) j["extensions"] = eval::to_json(extensions);
  return j;
}

std::optional<CompileCacheEntry> CompileCacheEntry::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const std::string status = string_of(j, "status");
  if (status.empty()) return std::nullopt;
  CompileCacheEntry e;
  e.output = string_of(j, "output");
  if (auto it = j.find("used_pch"); it != j.end() && it->is_boolean()) e.used_pch = it->get<bool>();
  if (auto it = j.find("static"); it != j.end()) e.static_findings = *it;
  if (status != "ok") {
    // A status that names no verdict is not an entry this kforge wrote: the compile is done again.
    const auto kind = parse_verdict_kind(status);
    if (!kind) return std::nullopt;
    CompileFailure f{*kind, {}};
    if (auto it = j.find("reasons"); it != j.end() && it->is_array())
      for (const auto& r : *it)
        if (r.is_object()) f.reasons.push_back({string_of(r, "code"), string_of(r, "detail")});
    // A failure always says why: an entry that lost its reasons still fails, with this one.
    if (f.reasons.empty()) f.reasons.push_back({"compile_error", "the compile cache's entry names no reason"});
    e.failure = std::move(f);
    return e;
  }
  if (auto it = j.find("extensions"); it != j.end()) {
    if (!it->is_array()) return std::nullopt;
    for (const auto& x : *it) {
      if (!x.is_object()) return std::nullopt;
      CachedExtension c{string_of(x, "name"), string_of(x, "key"), string_of(x, "library")};
      if (auto h = x.find("cache_hit"); h != x.end() && h->is_boolean()) c.cache_hit = h->get<bool>();
      if (auto p = x.find("used_pch"); p != x.end() && p->is_boolean()) c.used_pch = p->get<bool>();
      if (auto s = x.find("seconds"); s != x.end() && s->is_number()) c.seconds = s->get<double>();
      e.extensions.push_back(std::move(c));
    }
  }
  return e;
}

std::optional<CompileCacheEntry> CompileCacheEntry::read(const fs::path& dir) {
  auto text = read_file((dir / kEntryFile).string());
  if (!text.ok()) return std::nullopt;
  return from_json(nlohmann::json::parse(*text, nullptr, false));
}

bool CompileCacheEntry::write(const fs::path& dir) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  return write_file_atomic((dir / kEntryFile).string(), to_json().dump()).ok();
}

}  // namespace kf::eval
