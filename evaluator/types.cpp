// Value types of the evaluator API: serialisation and the signature's C rendering.
#include <filesystem>
#include <sstream>

#include "core/data_dir.h"
#include "evaluator/evaluator.h"

namespace kf::eval {

std::string to_string(Backend backend) { return backend == Backend::cuda ? "cuda" : "host"; }

Result<Backend> parse_backend(const std::string& text) {
  if (text == "cuda") return Backend::cuda;
  if (text == "host") return Backend::host;
  return make_error("eval.backend", "unknown backend '" + text + "': use cuda or host");
}

std::string to_string(CandidateKind kind) { return kind == CandidateKind::kernelbench ? "kernelbench" : "kf_forward"; }

CandidateKind candidate_kind_of(const std::string& source_path) {
  return std::filesystem::path(source_path).extension() == ".py" ? CandidateKind::kernelbench
                                                                 : CandidateKind::kf_forward;
}

namespace {
const char* abi_name(const std::string& dtype) {
  if (dtype == "float32") return "KF_FLOAT32";
  if (dtype == "float16") return "KF_FLOAT16";
  if (dtype == "bfloat16") return "KF_BFLOAT16";
  if (dtype == "float64") return "KF_FLOAT64";
  if (dtype == "int64") return "KF_INT64";
  if (dtype == "int32") return "KF_INT32";
  if (dtype == "bool") return "KF_BOOL";
  if (dtype == "int8") return "KF_INT8";
  if (dtype == "uint8") return "KF_UINT8";
  return "?";
}

std::string shape_text(const TensorSpec& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  s += "]";
  if (t.varying_dims.empty()) return s;
  s += "  (varies between calls:";
  for (int d : t.varying_dims) s += " shape[" + std::to_string(d) + "]";
  return s + "; the size shown is one example)";
}

bool any_varying(const std::vector<TensorSpec>& v) {
  for (const auto& t : v)
    if (!t.varying_dims.empty()) return true;
  return false;
}

nlohmann::json specs_json(const std::vector<TensorSpec>& v) {
  auto a = nlohmann::json::array();
  for (const auto& t : v)
    a.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"varying_dims", t.varying_dims}});
  return a;
}
}  // namespace

std::string Signature::to_c_declaration() const {
  std::ostringstream o;
  std::string name = std::filesystem::path(problem).stem().string();
  o << "/* kforge signature of " << name << " (precision " << precision << ")\n";
  o << " * inputs (forward() arguments, then state_dict() entries):\n";
  for (size_t i = 0; i < inputs.size(); ++i)
    o << " *   inputs[" << i << "]  " << inputs[i].name << ": " << abi_name(inputs[i].dtype) << " "
      << shape_text(inputs[i]) << "\n";
  o << " * outputs (forward() results, preallocated, contents undefined on entry):\n";
  for (size_t i = 0; i < outputs.size(); ++i)
    o << " *   outputs[" << i << "] " << outputs[i].name << ": " << abi_name(outputs[i].dtype) << " "
      << shape_text(outputs[i]) << "\n";
  if (any_varying(inputs) || any_varying(outputs)) {
    o << " * Sizes marked 'varies' depend on the seed: they change between correctness trials and timed\n"
      << " * rounds. Read them from kf_tensor.shape[] (and ndim) on every call; never bake in the example.\n";
  }
  o << " * All tensors contiguous, row-major. */\n";
  o << "int kf_forward(const kf_tensor* inputs, int32_t num_inputs,   /* num_inputs == " << inputs.size() << " */\n";
  o << "               kf_tensor* outputs, int32_t num_outputs,       /* num_outputs == " << outputs.size() << " */\n";
  o << "               void* stream);\n";
  return o.str();
}

nlohmann::json Signature::to_json() const {
  return {
      {"problem", problem}, {"precision", precision}, {"inputs", specs_json(inputs)}, {"outputs", specs_json(outputs)}};
}

nlohmann::json EnvironmentInfo::to_json() const {
  nlohmann::json j{{"backend", backend},     {"gpu_name", gpu_name}, {"gpu_arch", gpu_arch},
                   {"torch", torch_version}, {"cuda", cuda_version}, {"python", python}};
  j["copy_bandwidth_gbps"] = copy_bandwidth_gbps ? nlohmann::json(*copy_bandwidth_gbps) : nlohmann::json(nullptr);
  return j;
}

std::string kforge_header_path() { return data_path("evaluator/kforge.h"); }

}  // namespace kf::eval
