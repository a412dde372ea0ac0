#pragma once
// The verdict of one evaluation (docs/evaluator.md lists verdicts and reason codes).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kf::eval {

struct Reason {
  std::string code;    // stable, e.g. "incorrect.rel_l2" (docs/evaluator.md lists them)
  std::string detail;  // figures and where
};

struct Verdict {
  std::string problem;
  std::string backend;
  std::string candidate_kind = "kf_forward";  // kf_forward | kernelbench (docs/candidates.md)
  std::string verdict = "harness_error";  // correct|incorrect|compile_error|runtime_error|timeout|rejected|harness_error
  bool correct = false;
  std::vector<Reason> reasons;
  nlohmann::json checks = nlohmann::json::object();  // per-trial error figures, coverage, timing details
  std::optional<double> time_ms, ref_time_ms, speedup;
  std::vector<std::string> flags;  // e.g. "degenerate_problem", "suspicious_speedup", "cache_hit"
  double compile_s = 0;
  double eval_s = 0;
  std::string compiler_output;     // capped, first errors intact

  nlohmann::json to_json() const;
  // Exit code of `kforge eval`: 0 correct, 1 other candidate verdicts, 3 harness_error.
  int exit_code() const;
};

}  // namespace kf::eval
