#pragma once
// One entry of the compile cache: DIR/result.json beside what a compile built, the one reader and writer of that
// file. Three compilers share the format (a .cu/.cpp candidate, a load_inline extension, a KernelBench
// solution); each fills the fields it has and ignores the others. The keys are those every kforge wrote since
// the cache existed, so older caches read the same.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace kf::eval {

// Why a compile failed: the verdict it earns (compile_error, rejected, harness_error) and its reasons.
struct CompileFailure {
  VerdictKind verdict = VerdictKind::compile_error;
  std::vector<Reason> reasons;
};

// A KernelBench solution's load_inline extension as its build went (reported as checks.build).
struct CachedExtension {
  std::string name;     // the module name given to load_inline
  std::string key;      // sha256 of the call's arguments
  std::string library;  // the built module, in the compile cache
  bool cache_hit = false;
  bool used_pch = false;
  double seconds = 0;
};

struct CompileCacheEntry {
  std::optional<CompileFailure> failure;    // nullopt: the compile succeeded
  std::string output;                       // the compiler's output
  bool used_pch = false;                    // extensions: built with the precompiled torch header
  nlohmann::json static_findings;           // solutions: static_check.py's findings, carried as they are
  std::vector<CachedExtension> extensions;  // solutions: their extensions

  bool ok() const { return !failure; }

  nlohmann::json to_json() const;
  // nullopt when `j` is not an entry (not an object, no status): the compile is done again.
  static std::optional<CompileCacheEntry> from_json(const nlohmann::json& j);
  // DIR/result.json; nullopt when there is none or it does not read as an entry.
  static std::optional<CompileCacheEntry> read(const std::filesystem::path& dir);
  // Creates DIR where needed and replaces DIR/result.json atomically; false when it could not.
  bool write(const std::filesystem::path& dir) const;
};

nlohmann::json to_json(const CachedExtension& e);
nlohmann::json to_json(const std::vector<CachedExtension>& extensions);

}  // namespace kf::eval
