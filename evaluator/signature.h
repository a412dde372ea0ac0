#pragma once
// A problem's tensor signature: what the candidate's kf_forward receives and must produce.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kf::eval {

struct TensorSpec {
  std::string name;            // forward argument name or state_dict key
  std::string dtype;           // "float32", "float16", "bfloat16", "float64", "int64", "int32", "bool", "int8", "uint8"
  std::vector<int64_t> shape;  // on trial 0 (the problem's own inputs)
  std::vector<int> varying_dims;  // dimensions whose size depends on the seed (read from kf_tensor.shape)
};

struct Signature {
  std::string problem;
  std::string precision;
  std::vector<TensorSpec> inputs;   // forward args, then state_dict() entries
  std::vector<TensorSpec> outputs;  // forward results in order
  // The commented C declaration shown in prompts.
  std::string to_c_declaration() const;
  nlohmann::json to_json() const;
};

}  // namespace kf::eval
