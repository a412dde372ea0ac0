#include "profiler/breakdown.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "core/format.h"

namespace kf::profiler {
namespace {

constexpr const char* kIdle = "idle";

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string lpad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

Breakdown compute_breakdown(const Trace& trace, const KernelRules& rules, const std::string& region_marker) {
  Breakdown b;
  b.region_marker = region_marker;
  const MeasuredRegions measured = find_regions(trace, region_marker);
  b.region_source = measured.source;
  b.regions = measured.regions.size();
  for (const auto& r : measured.regions) b.wall_ns += r.end - r.start;
  b.dropped = trace.dropped;
  b.overhead_ns = trace.overhead_ns;
  if (measured.source == "none") {
    b.warnings.push_back("no region named \"" + region_marker +
                         "\" was marked; the whole trace is measured, warm-up included. Mark the measured steps "
                         "with an NVTX range of that name (see docs/profiler.md).");
  }
  if (trace.dropped > 0) {
    b.warnings.push_back(std::to_string(trace.dropped) + " activity records were dropped; GPU time is undercounted.");
  }
  if (trace.complete_processes < trace.processes) {
    b.warnings.push_back(std::to_string(trace.processes - trace.complete_processes) +
                         " process(es) ended without flushing their records (killed, or _exit); their tail is "
                         "missing.");
  }
  for (const auto& m : trace.status_messages) b.warnings.push_back("injection library: " + m);

  // Clip every activity to the region; each clipped piece is one interval of the sweep.
  std::vector<Interval> pieces;
  std::vector<uint32_t> piece_activity;
  for (uint32_t i = 0; i < trace.activities.size(); ++i) {
    const Activity& a = trace.activities[i];
    const auto clipped = clip_to_regions({a.start, a.end}, measured.regions);
    if (clipped.empty()) continue;
    switch (a.kind) {
      case ActivityKind::kernel: ++b.kernel_count; break;
      case ActivityKind::memcpy: ++b.copy_count; break;
      case ActivityKind::memset: ++b.memset_count; break;
    }
    for (const auto& p : clipped) {
      pieces.push_back(p);
      piece_activity.push_back(i);
    }
  }
  const SharedTime shared = share_overlaps(pieces);
  b.busy_ns = shared.busy_ns;
  if (!pieces.empty()) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& p : pieces) {
      lo = std::min(lo, p.start);
      hi = std::max(hi, p.end);
    }
    b.gpu_span_ns = hi - lo;
  }

  for (const auto& k : rules.classes()) {
    b.class_order.push_back(k.name);
    b.classes[k.name] = ClassTime{tier_name(k.tier), 0, 0};
  }
  b.class_order.push_back(kIdle);
  b.tier_ns = {{"core", 0.0}, {"vendor", 0.0}, {"not_addressable", 0.0}};

  std::unordered_map<uint32_t, KernelTime> by_name;
  uint32_t last_counted = UINT32_MAX;
  for (size_t p = 0; p < pieces.size(); ++p) {
    const Activity& a = trace.activities[piece_activity[p]];
    const std::string& name = trace.names[a.name_id];
    const Classification c = rules.classify(name);
    const double t = shared.shared_ns[p];
    const bool first_piece = piece_activity[p] != last_counted;
    last_counted = piece_activity[p];
    auto& cls = b.classes[c.class_name];
    cls.time_ns += t;
    if (first_piece) ++cls.count;
    b.tier_ns[tier_name(c.tier)] += t;
    auto& k = by_name[a.name_id];
    if (k.name.empty()) k = KernelTime{name, c.class_name, tier_name(c.tier), 0, 0};
    k.time_ns += t;
    if (first_piece) ++k.count;
  }
  // A rule may put one kernel in a tier other than its class's default; report the class's tier as the
  // rule file states it, and account tier time per kernel (above).
  const double idle = static_cast<double>(b.wall_ns > b.busy_ns ? b.wall_ns - b.busy_ns : 0);
  b.classes[kIdle] = ClassTime{"not_addressable", idle, 0};
  b.tier_ns["not_addressable"] += idle;

  for (auto& [id, k] : by_name) b.kernels.push_back(std::move(k));
  std::sort(b.kernels.begin(), b.kernels.end(),
            [](const KernelTime& x, const KernelTime& y) { return x.time_ns > y.time_ns; });
  if (b.wall_ns > 0) {
    b.addressable_fraction = b.tier_ns["core"] / static_cast<double>(b.wall_ns);
    b.vendor_fraction = b.tier_ns["vendor"] / static_cast<double>(b.wall_ns);
  }
  return b;
}

nlohmann::json breakdown_to_json(const Breakdown& b, size_t max_kernels) {
  const double wall = static_cast<double>(b.wall_ns);
  const auto share = [&](double ns) { return wall > 0 ? ns / wall : 0.0; };
  nlohmann::json j;
  j["kforge_profile"] = 1;
  j["region_marker"] = b.region_marker;
  j["region_source"] = b.region_source;
  j["regions"] = b.regions;
  j["wall_ms"] = wall / 1e6;
  j["busy_ms"] = static_cast<double>(b.busy_ns) / 1e6;
  j["gpu_span_ms"] = static_cast<double>(b.gpu_span_ns) / 1e6;
  j["kernel_count"] = b.kernel_count;
  j["copy_count"] = b.copy_count;
  j["memset_count"] = b.memset_count;
  j["dropped_records"] = b.dropped;
  j["cupti_overhead_ms"] = static_cast<double>(b.overhead_ns) / 1e6;
  j["addressable_fraction"] = b.addressable_fraction;
  j["vendor_fraction"] = b.vendor_fraction;
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& name : b.class_order) {
    const auto& c = b.classes.at(name);
    classes.push_back({{"class", name},
                       {"tier", c.tier},
                       {"time_ms", c.time_ns / 1e6},
                       {"share", share(c.time_ns)},
                       {"count", c.count}});
  }
  j["classes"] = classes;
  nlohmann::json tiers = nlohmann::json::object();
  for (const auto& [tier, ns] : b.tier_ns) tiers[tier] = {{"time_ms", ns / 1e6}, {"share", share(ns)}};
  j["tiers"] = tiers;
  nlohmann::json kernels = nlohmann::json::array();
  for (size_t i = 0; i < b.kernels.size() && i < max_kernels; ++i) {
    const auto& k = b.kernels[i];
    kernels.push_back({{"name", k.name},
                       {"class", k.class_name},
                       {"tier", k.tier},
                       {"count", k.count},
                       {"time_ms", k.time_ns / 1e6},
                       {"share", share(k.time_ns)}});
  }
  j["kernels"] = kernels;
  j["kernels_total"] = b.kernels.size();
  j["warnings"] = b.warnings;
  return j;
}

Result<Breakdown> breakdown_from_json(const nlohmann::json& j, const std::string& origin) {
  const auto bad = [&](const std::string& what) {
    return make_error("profile.invalid", origin + " is not a kforge profile (" + what +
                                             "); write one with `kforge profile --out FILE.json -- COMMAND`.");
  };
  if (!j.is_object() || !j.contains("kforge_profile")) return bad("no \"kforge_profile\" field");
  try {
    Breakdown b;
    b.region_marker = j.value("region_marker", std::string());
    b.region_source = j.value("region_source", std::string());
    b.wall_ns = static_cast<uint64_t>(j.at("wall_ms").get<double>() * 1e6);
    b.addressable_fraction = j.at("addressable_fraction").get<double>();
    b.vendor_fraction = j.value("vendor_fraction", 0.0);
    for (const auto& c : j.at("classes")) {
      const std::string name = c.at("class").get<std::string>();
      b.class_order.push_back(name);
      b.classes[name] = ClassTime{c.at("tier").get<std::string>(), c.at("time_ms").get<double>() * 1e6,
                                  c.value("count", uint64_t{0})};
    }
    if (b.wall_ns == 0) return bad("its measured region has zero length");
    return b;
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
}

std::string format_breakdown(const Breakdown& b, size_t top_kernels) {
  const double wall = static_cast<double>(b.wall_ns);
  const auto pct = [&](double ns) { return wall > 0 ? format_fixed(100.0 * ns / wall, 1) + "%" : std::string("-"); };
  std::string out;
  out += "measured region: " + format_fixed(wall / 1e6, 3) + " ms (" + std::to_string(b.regions) +
         " range(s), source " + b.region_source + "), GPU busy " +
         format_fixed(static_cast<double>(b.busy_ns) / 1e6, 3) + " ms, " + std::to_string(b.kernel_count) +
         " kernels, " + std::to_string(b.copy_count) + " copies, " + std::to_string(b.memset_count) + " memsets, " +
         std::to_string(b.dropped) + " dropped records\n\n";
  out += pad("class", 24) + pad("tier", 17) + lpad("time ms", 12) + lpad("share", 9) + lpad("count", 10) + "\n";
  for (const auto& name : b.class_order) {
    const auto& c = b.classes.at(name);
    if (c.time_ns <= 0 && c.count == 0) continue;
    out += pad(name, 24) + pad(c.tier, 17) + lpad(format_fixed(c.time_ns / 1e6, 3), 12) + lpad(pct(c.time_ns), 9) +
           lpad(name == "idle" ? "" : std::to_string(c.count), 10) + "\n";
  }
  out += "\n";
  for (const char* tier : {"core", "vendor", "not_addressable"}) {
    const auto it = b.tier_ns.find(tier);
    const double ns = it == b.tier_ns.end() ? 0.0 : it->second;
    out += pad(std::string("tier ") + tier, 41) + lpad(format_fixed(ns / 1e6, 3), 12) + lpad(pct(ns), 9) + "\n";
  }
  out += "\naddressable fraction (core-tier kernel time / region wall time): " +
         format_fixed(100.0 * b.addressable_fraction, 1) + "%" + "\n";
  if (top_kernels > 0 && !b.kernels.empty()) {
    out += "\ntop kernels:\n";
    for (size_t i = 0; i < b.kernels.size() && i < top_kernels; ++i) {
      const auto& k = b.kernels[i];
      std::string name = k.name.size() > 90 ? k.name.substr(0, 87) + "..." : k.name;
      out += lpad(pct(k.time_ns), 7) + "  " + pad(k.class_name, 22) + name + "\n";
    }
  }
  for (const auto& w : b.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace kf::profiler
