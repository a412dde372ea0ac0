#pragma once
// `kforge reverify DIR`: re-judges every correct kernel of a corpus with new seeds and a freshly
// timed baseline, and says which claimed speedups hold within the measured spread.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kf::agent {

struct ReverifyOptions {
  std::string dir;
  std::string out;              // JSON results file; "" = none
  std::string backend;          // "" = the backend the corpus was recorded with
  std::string python;
  std::optional<uint64_t> seed; // default: a fresh random seed, recorded in the output
  bool best_only = false;       // only each unit's best kernel
  bool allow_vendor_libs = false;
};

// Speedup interval from the timing spread in a verdict's checks (p10/p90 of candidate and baseline):
// [baseline p10 / candidate p90, baseline p90 / candidate p10]. nullopt without those figures.
std::optional<std::pair<double, double>> speedup_interval(const nlohmann::json& verdict);

// Does the re-measurement support the claim? "holds" when still correct and the claimed and new
// speedup intervals overlap (without spreads: within 10% of each other); else "not_reproduced" or
// "now_incorrect".
std::string reverify_status(const nlohmann::json& claimed_verdict, const nlohmann::json& new_verdict);

int run_reverify(const ReverifyOptions& options);

}  // namespace kf::agent
