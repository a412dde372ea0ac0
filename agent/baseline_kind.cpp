#include "agent/baseline_kind.h"

#include <map>

namespace kf::agent {

const std::vector<std::string>& baseline_kinds() {
  static const std::vector<std::string> k = {"eager", "torch_compile", "torch_compile_reduce_overhead", "cuda_graph",
                                             "cudnn"};
  return k;
}

std::string baseline_label(const std::string& kind) {
  static const std::map<std::string, std::string> labels = {
      {"eager", "eager"},
      {"torch_compile", "torch.compile"},
      {"torch_compile_reduce_overhead", "torch.compile (reduce-overhead)"},
      {"cuda_graph", "CUDA graph"},
      {"cudnn", "cuDNN flags"}};
  auto it = labels.find(kind);
  return it == labels.end() ? (kind.empty() ? "eager" : kind) : it->second;
}

std::optional<SpeedupFigure> measured_speedup(const nlohmann::json& verdict, const std::string& kind) {
  // The verdict's speedup is over the eager reference (docs/evaluator.md).
  if (kind == "eager") return speedup_figure(verdict);
  return std::nullopt;
}

}  // namespace kf::agent
