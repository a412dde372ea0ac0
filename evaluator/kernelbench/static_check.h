#pragma once
// The static check of a kernelbench solution (evaluator/kernelbench/static_check.py, run as a sandboxed job:
// trusted code over hostile text, never executing it) and the verdicts kforge derives from its findings.
// Its findings exist before any of the solution's code runs, so they can be believed. docs/candidates.md.
#include <nlohmann/json.hpp>

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
// reaches no kernel of its own (rejected.torch_fallback). Empty when none applies.
std::vector<Reason> judge_static(const nlohmann::json& findings, Backend backend, const PythonEnv& env);

// The torch-fallback rule against the reference's compute operators: forward (and the extensions' C++) calls
// every one of them through PyTorch -> rejected.torch_fallback naming them. Some of them -> no reason, but
// *partial receives those operators (the flag torch_compute_in_forward).
std::vector<Reason> judge_torch_fallback(const nlohmann::json& findings, const std::vector<std::string>& reference_ops,
                                         std::vector<std::string>* partial);

}  // namespace kf::eval::kernelbench
