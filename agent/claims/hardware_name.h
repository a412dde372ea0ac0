#pragma once
// GPU names as releases state them ("H100", "NVIDIA A100-SXM4-40GB", "RTX 3090", "L40S") reduced to the
// model, so a claim's hardware can be compared with the GPU kforge measured on.
#include <optional>
#include <string>

namespace kf::agent {

// The GPU model a name states, upper case: "NVIDIA A100-SXM4-40GB" -> "A100", "RTX 3090" -> "3090",
// "NVIDIA H200" -> "H200", "L40S" -> "L40S". "" when the name states none (empty, "cpu", ...).
std::string gpu_model(const std::string& name);

// Whether two names state the same GPU model; nullopt when either states none.
std::optional<bool> same_gpu(const std::string& a, const std::string& b);

}  // namespace kf::agent
