#pragma once
// What Nsight Compute measured of a correct kernel: a fixed small set of figures for the model's feedback
// (docs/evaluator.md, "Profile feedback"). Advice only: no verdict, speedup or report figure ever reads it.
// The verdict records it as checks.profile (checks.h), so that the corpus keeps what the feedback said.
// Gathered by the trusted side in a profiling run of its own after the verdict, outside every timed round.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kf::eval {

// One reason warps waited instead of issuing, as its share of all the stall reasons ncu reported.
struct StallShare {
  std::string reason;  // ncu's name: long_scoreboard, mio_throttle, barrier, ...
  double share = 0;    // 0-1
};

struct KernelProfile {
  std::string kernel;  // the profiled launch's kernel name (the longest launch of the call), made printable
  int launches = 0;    // kernel launches ncu profiled
  std::optional<double> duration_ns;
  std::optional<double> memory_throughput_pct;   // of the device's peak (ncu's "Memory Throughput")
  std::optional<double> compute_throughput_pct;  // of the SMs' peak (ncu's "Compute (SM) Throughput")
  std::optional<double> achieved_occupancy_pct;  // active warps of the maximum
  std::vector<StallShare> top_stalls;            // at most kTopStalls, largest first
  static constexpr size_t kTopStalls = 3;

  bool has_figures() const;
  // One sentence for the feedback; "" without figures.
  std::string describe() const;
  nlohmann::json to_json() const;
  // A recorded profile, read by type: a wrong-typed field reads as absent; nullopt without any figure.
  static std::optional<KernelProfile> from_json(const nlohmann::json& j);
};

}  // namespace kf::eval
