#pragma once
// Shared helpers of the evaluator tests: locating a python with torch and the test data.
#include <cstdlib>
#include <deque>
#include <string>

#include "verdict/verdict.h"

#include "tests/support/command.h"

namespace kf::eval::test {

using kf::testing::kNoTorchAdvice;
using kf::testing::python_with_torch;

// KFORGE_SOURCE_DIR overrides the configure-time source folder (tests run from a copied tree).
inline std::string src(const std::string& rel) {
  const char* o = std::getenv("KFORGE_SOURCE_DIR");
  return std::string(o && *o ? o : KFORGE_TEST_SOURCE_DIR) + "/" + rel;
}
inline std::string runner_path() {
  const char* o = std::getenv("KFORGE_RUNNER");
  return o && *o ? o : std::string(KFORGE_TEST_BINARY_DIR) + "/kforge-runner";
}
inline std::string problem(const std::string& name) { return src("tests/evaluator/problems/" + name); }
inline std::string host_candidate(const std::string& name) { return src("tests/evaluator/host/" + name); }

// A verdict's checks as its JSON, which these tests look into; kept alive for the test's whole run, so that
// references into it (and loops over its parts) stay valid.
inline const nlohmann::json& checks_of(const Verdict& v) {
  static std::deque<nlohmann::json> kept;
  return kept.emplace_back(v.checks.to_json());
}

inline bool has_reason(const Verdict& v, const std::string& code) {
  for (const auto& r : v.reasons)
    if (r.code == code) return true;
  return false;
}

inline std::string reasons_text(const Verdict& v) {
  std::string s = to_string(v.kind) + ":";
  for (const auto& r : v.reasons) s += " [" + r.code + "] " + r.detail + ";";
  return s;
}

}  // namespace kf::eval::test
