#pragma once
// Where the measured region's wall time went: per kernel class and per tier, with overlap shared equally.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler/rules.h"
#include "profiler/trace.h"

namespace kf::profiler {

struct ClassTime {
  std::string tier;
  double time_ns = 0;
  uint64_t count = 0;
};

struct KernelTime {
  std::string name;
  std::string class_name;
  std::string tier;
  double time_ns = 0;
  uint64_t count = 0;
};

struct Breakdown {
  std::string region_marker;
  std::string region_source;  // nvtx | explicit | none
  uint64_t regions = 0;
  uint64_t wall_ns = 0;      // total length of the measured region(s)
  uint64_t busy_ns = 0;      // union of activity intervals inside the region
  uint64_t gpu_span_ns = 0;  // first activity start to last activity end inside the region
  uint64_t kernel_count = 0, copy_count = 0, memset_count = 0;
  std::vector<std::string> class_order;      // the rule file's order, then "idle"
  std::map<std::string, ClassTime> classes;  // includes "idle" (wall - busy, tier not_addressable)
  std::map<std::string, double> tier_ns;     // core, vendor, not_addressable (idle included)
  std::vector<KernelTime> kernels;           // by name, most time first
  double addressable_fraction = 0;           // core-tier time / wall
  double vendor_fraction = 0;                // vendor-tier time / wall
  uint64_t dropped = 0;
  uint64_t overhead_ns = 0;
  std::vector<std::string> warnings;
};

Breakdown compute_breakdown(const Trace& trace, const KernelRules& rules, const std::string& region_marker);

nlohmann::json breakdown_to_json(const Breakdown& b, size_t max_kernels);
// Reads the fields the projection needs back from a profile written by breakdown_to_json.
Result<Breakdown> breakdown_from_json(const nlohmann::json& j, const std::string& origin);

// A human-readable table: per class time and share, tiers, addressable fraction.
std::string format_breakdown(const Breakdown& b, size_t top_kernels);

}  // namespace kf::profiler
