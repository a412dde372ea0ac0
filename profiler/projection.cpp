#include "profiler/projection.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "core/format.h"

namespace kf::profiler {
namespace {

double inverse_complement(double f) { return f < 1.0 ? 1.0 / (1.0 - f) : std::numeric_limits<double>::infinity(); }

}  // namespace

Projection project(const Breakdown& profile, const KernelRules& rules,
                   const std::map<std::string, ProblemOutcome>& problems, const std::string& config) {
  Projection p;
  p.config = config;
  const double wall = static_cast<double>(profile.wall_ns);
  for (const auto& [name, outcome] : problems) {
    if (!outcome.ref_time_ms) ++p.unweighted_problems;
  }
  for (const auto& k : rules.classes()) {
    ClassProjection c;
    c.class_name = k.name;
    c.tier = tier_name(k.tier);
    c.categories = k.categories;
    const auto it = profile.classes.find(k.name);
    c.share = (it != profile.classes.end() && wall > 0) ? it->second.time_ns / wall : 0.0;
    double t_all = 0, t_win = 0, t_win_after = 0;
    for (const auto& [name, outcome] : problems) {
      if (!outcome.ref_time_ms) continue;
      if (std::find(k.categories.begin(), k.categories.end(), outcome.category) == k.categories.end()) continue;
      ++c.problems;
      const double t = *outcome.ref_time_ms;
      t_all += t;
      if (outcome.best_speedup && *outcome.best_speedup > 1.0) {
        ++c.wins;
        t_win += t;
        t_win_after += t / *outcome.best_speedup;
      }
    }
    if (t_all > 0) c.win_rate = t_win / t_all;
    if (t_win_after > 0) c.speedup = t_win / t_win_after;
    c.saved = c.share * c.win_rate * (1.0 - 1.0 / c.speedup);
    p.saved += c.saved;
    p.classes.push_back(std::move(c));
  }
  p.speedup = inverse_complement(p.saved);
  p.ceiling_core = inverse_complement(profile.addressable_fraction);
  p.ceiling_core_vendor = inverse_complement(profile.addressable_fraction + profile.vendor_fraction);
  return p;
}

std::string format_projection(const Projection& p) {
  std::string out = "configuration " + p.config + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-22s %-16s %8s %9s %9s %9s %9s\n", "class", "tier", "share", "problems",
                "win rate", "speedup", "saved");
  out += line;
  for (const auto& c : p.classes) {
    if (c.share <= 0 && c.problems == 0) continue;
    std::snprintf(line, sizeof line, "  %-22s %-16s %7.2f%% %4zu/%-4zu %8.1f%% %9s %8.3f%%\n", c.class_name.c_str(),
                  c.tier.c_str(), 100 * c.share, c.wins, c.problems, 100 * c.win_rate,
                  c.wins > 0 ? (format_fixed(c.speedup, 3) + "x").c_str() : "-", 100 * c.saved);
    out += line;
  }
  out += "  projected time reduction " + format_fixed(100 * p.saved, 3) + "%" +
         ", end-to-end speedup S = " + format_fixed(p.speedup, 4) + "x" + "\n";
  out += "  ceiling 1/(1 - f_addressable) = " + format_fixed(p.ceiling_core, 4) + "x" +
         " (with vendor kernels replaceable too: " + format_fixed(p.ceiling_core_vendor, 4) + "x" + ")\n";
  if (p.unweighted_problems > 0) {
    out += "  note: " + std::to_string(p.unweighted_problems) +
           " problem(s) have no baseline time in the corpus and were left out\n";
  }
  return out;
}

nlohmann::json projection_to_json(const Projection& p) {
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& c : p.classes) {
    classes.push_back({{"class", c.class_name},
                       {"tier", c.tier},
                       {"categories", c.categories},
                       {"share", c.share},
                       {"problems", c.problems},
                       {"wins", c.wins},
                       {"win_rate", c.win_rate},
                       {"speedup", c.speedup},
                       {"saved", c.saved}});
  }
  return {{"config", p.config},
          {"classes", classes},
          {"saved", p.saved},
          {"speedup", p.speedup},
          {"ceiling_core", p.ceiling_core},
          {"ceiling_core_vendor", p.ceiling_core_vendor},
          {"unweighted_problems", p.unweighted_problems}};
}

}  // namespace kf::profiler
