#pragma once
// What a speedup is measured over. Releases name several baselines (CUDA-L1 five, the KernelBench
// leaderboard two); a claim is only compared with kforge's measurement over the same kind. kforge measures
// the eager baseline today; a verdict that carries others (the "yardsticks" work: torch.compile) plugs in
// through measured_speedup below and nowhere else.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/reverify_rule.h"

namespace kf::agent {

// eager, torch_compile, torch_compile_reduce_overhead, cuda_graph, cudnn: the order reports list them.
const std::vector<std::string>& baseline_kinds();
// A short label for tables: "eager", "torch.compile", "torch.compile (reduce-overhead)", "CUDA graph", "cuDNN flags".
std::string baseline_label(const std::string& kind);

// kforge's measured speedup over `kind`, with its interval; nullopt when the verdict measured no such
// baseline (today: every kind but eager).
std::optional<SpeedupFigure> measured_speedup(const nlohmann::json& verdict, const std::string& kind);

}  // namespace kf::agent
