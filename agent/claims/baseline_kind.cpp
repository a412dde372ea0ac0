#include "agent/claims/baseline_kind.h"

#include <map>

#include "verdict/verdict.h"

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

std::optional<SpeedupFigure> measured_speedup(const eval::Verdict& verdict, const std::string& kind) {
  // kforge times eager and torch.compile (default mode); the verdict's own speedup is over its primary one.
  const std::string name = kind == "eager" ? "eager" : kind == "torch_compile" ? "compile" : "";
  if (name.empty()) return std::nullopt;
  eval::Verdict over = verdict;
  over.choose_primary_baseline(name);
  if (over.baseline != name) return std::nullopt;
  return speedup_figure(over);
}

}  // namespace kf::agent
