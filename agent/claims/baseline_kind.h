#pragma once
// What a speedup is measured over. Releases name several baselines (CUDA-L1 five, the KernelBench
// leaderboard two); a claim is only compared with kforge's measurement over the same kind. kforge measures
// eager and torch.compile (default mode: the kind `torch_compile`); the others are never measured.
// Everything that compares a claim with a measurement goes through measured_speedup below.
#include <optional>
#include <string>
#include <vector>

#include "agent/claims/reverify_rule.h"
#include "verdict/verdict.h"

namespace kf::agent {

// eager, torch_compile, torch_compile_reduce_overhead, cuda_graph, cudnn: the order reports list them.
const std::vector<std::string>& baseline_kinds();
// A short label for tables: "eager", "torch.compile", "torch.compile (reduce-overhead)", "CUDA graph", "cuDNN flags".
std::string baseline_label(const std::string& kind);

// kforge's measured speedup over `kind`, with its interval; nullopt when the verdict measured no such
// baseline (torch.compile only where the compile baseline was timed; never the other kinds).
std::optional<SpeedupFigure> measured_speedup(const eval::Verdict& verdict, const std::string& kind);

}  // namespace kf::agent
