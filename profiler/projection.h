#pragma once
// The Amdahl projection: how much of a profiled workload's wall time a campaign's winning kernels could save.
#include <string>
#include <vector>

#include "profiler/breakdown.h"
#include "profiler/corpus.h"
#include "profiler/rules.h"

namespace kf::profiler {

struct ClassProjection {
  std::string class_name;
  std::string tier;
  std::vector<std::string> categories;
  double share = 0;     // f_c: class time / region wall time
  size_t problems = 0;  // problems of those categories attempted (with a baseline time)
  size_t wins = 0;      // of which the best kernel beat the baseline (speedup > 1)
  double win_rate = 0;  // w_c: time-weighted (by baseline time)
  double speedup = 1;   // m_c: baseline-time-weighted harmonic mean of the winners' speedups
  double saved = 0;     // f_c * w_c * (1 - 1/m_c)
};

struct Projection {
  std::string config;
  std::vector<ClassProjection> classes;
  double saved = 0;                // fraction of wall time saved
  double speedup = 1;              // S = 1 / (1 - saved)
  double ceiling_core = 1;         // 1 / (1 - f_addressable)
  double ceiling_core_vendor = 1;  // 1 / (1 - f_addressable - f_vendor)
  size_t unweighted_problems = 0;  // problems without any baseline time (left out)
};

Projection project(const Breakdown& profile, const KernelRules& rules,
                   const std::map<std::string, ProblemOutcome>& problems, const std::string& config);

std::string format_projection(const Projection& p);
nlohmann::json projection_to_json(const Projection& p);

}  // namespace kf::profiler
