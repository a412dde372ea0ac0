#pragma once
// One load_inline call as the build recorder saw it (hostile data: the solution's code produced it), validated,
// and the translation units kforge builds from it the way torch's load_inline lays them out. The Python side of
// the same record is evaluator/kernelbench/extension_call.py; extension_key() must agree with its key().
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace kf::eval::kernelbench {

struct ExtensionCall {
  std::string name;  // a C identifier: the module's name and TORCH_EXTENSION_NAME
  std::vector<std::string> cpp_sources, cuda_sources;
  std::vector<std::pair<std::string, std::string>> functions;  // bound by kforge: (name, docstring)
  std::vector<std::string> extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths;
  bool with_cuda = false;  // links the CUDA libraries (load_inline: with_cuda, else whether cuda_sources is given)
  bool with_pytorch_error_handling = true;
  std::string key;  // extension_key() of the record

  // main.cpp: torch/extension.h, the C++ sources, pybind11 bindings for `functions`.
  std::string main_cpp() const;
  // cuda.cu: torch/types.h and the CUDA runtime headers, then the CUDA sources ("" when there are none).
  std::string cuda_cu() const;
};

// sha256 of the record's canonical JSON over extension_call.py's KEY_FIELDS.
std::string extension_key(const nlohmann::json& record);

// Validates one record. Errors carry the reason code compile_error.unsupported and say what is wrong.
Result<ExtensionCall> parse_extension_call(const nlohmann::json& record);

}  // namespace kf::eval::kernelbench
