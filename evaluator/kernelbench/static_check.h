#pragma once
// The static check of a kernelbench solution (evaluator/kernelbench/static_check.py, run as a sandboxed job:
// trusted code over hostile text, never executing it) and the verdicts kforge derives from its findings.
// Its findings exist before any of the solution's code runs, so they can be believed. docs/candidates.md.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/evaluator.h"
#include "evaluator/kernelbench/python_env.h"

namespace kf::eval::kernelbench {

// Findings about `source` (a solution's text for mode "solution", a problem's for mode "problem").
Result<nlohmann::json> run_static_check(const PythonEnv& env, const std::string& mode, const std::string& source);

// What the findings alone decide, before anything is built: the solution is not one kforge can run
// (compile_error, compile_error.unsupported, compile_error.missing_package for Triton / TileLang / CuTe DSL
// absent from the runner's python), tampers with the harness (rejected.harness_tampering), or its forward
// reaches no kernel of its own on the measured path (rejected.torch_fallback). Empty when none applies; a forward that
// raises on every path is left to fail when it runs.
std::vector<Reason> judge_static(const nlohmann::json& findings, Backend backend, const PythonEnv& env);

// The reference's work, from the static check of the problem's file: its compute operators by name, and each unit of
// work (an operator, "arithmetic" on tensors, a "copy") with how often forward reaches it (a loop counts many times).
struct ReferenceWork {
  std::vector<std::string> ops;
  std::map<std::string, int64_t> units;

  static ReferenceWork from_findings(const nlohmann::json& problem_findings);
};

// What forward leaves to PyTorch of the reference's work (partial replacement, which KernelBench allows): the units
// it does through PyTorch on some path, in forward or in the extensions' C++ (`torch`), and the rest (`kernels`).
struct Coverage {
  std::vector<std::string> torch;
  std::vector<std::string> kernels;

  bool partial() const { return !torch.empty(); }
  nlohmann::json to_json() const { return {{"torch", torch}, {"kernels", kernels}}; }
};

// The torch-fallback rule against the reference's work: on every path of forward that returns, PyTorch (in forward
// or in the extensions' C++) does every unit of it as often as the reference does -> rejected.torch_fallback naming
// them: a kernel beside it has nothing of the reference's left to do. Otherwise no reason, and *coverage receives
// what PyTorch does and what is left to the kernels.
std::vector<Reason> judge_torch_fallback(const nlohmann::json& findings, const ReferenceWork& reference,
                                         Coverage* coverage);

}  // namespace kf::eval::kernelbench
