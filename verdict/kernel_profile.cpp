#include "verdict/kernel_profile.h"

#include "core/format.h"

namespace kf::eval {
namespace {

std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string pct(double v) { return format_significant(v, 3) + "%"; }

}  // namespace

bool KernelProfile::has_figures() const {
  return memory_throughput_pct || compute_throughput_pct || achieved_occupancy_pct || !top_stalls.empty();
}

std::string KernelProfile::describe() const {
  if (!has_figures()) return "";
  std::string out = "Nsight Compute on your kernel " + kernel;
  if (launches > 1) out += " (the longest of the " + std::to_string(launches) + " launches profiled)";
  out += ":";
  std::string figures;
  auto add = [&](const std::string& part) { figures += (figures.empty() ? " " : ", ") + part; };
  if (memory_throughput_pct) add("memory throughput " + pct(*memory_throughput_pct) + " of peak");
  if (compute_throughput_pct) add("compute (SM) throughput " + pct(*compute_throughput_pct) + " of peak");
  if (achieved_occupancy_pct) add("achieved occupancy " + pct(*achieved_occupancy_pct));
  out += figures;
  if (!top_stalls.empty()) {
    out += std::string(figures.empty() ? " " : "; ") + "warps stalled most on ";
    for (size_t i = 0; i < top_stalls.size(); ++i)
      out += (i ? ", " : "") + top_stalls[i].reason + " (" + pct(top_stalls[i].share * 100) + " of stalls)";
  }
  return out + ".";
}

nlohmann::json KernelProfile::to_json() const {
  nlohmann::json j = {{"kernel", kernel}, {"launches", launches}};
  if (duration_ns) j["duration_ns"] = *duration_ns;
  if (memory_throughput_pct) j["memory_throughput_pct"] = *memory_throughput_pct;
  if (compute_throughput_pct) j["compute_throughput_pct"] = *compute_throughput_pct;
  if (achieved_occupancy_pct) j["achieved_occupancy_pct"] = *achieved_occupancy_pct;
  j["top_stalls"] = nlohmann::json::array();
  for (const auto& s : top_stalls) j["top_stalls"].push_back({{"reason", s.reason}, {"share", s.share}});
  return j;
}

std::optional<KernelProfile> KernelProfile::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  KernelProfile p;
  if (auto it = j.find("kernel"); it != j.end() && it->is_string()) p.kernel = it->get<std::string>();
  if (auto it = j.find("launches"); it != j.end() && it->is_number_integer()) p.launches = it->get<int>();
  p.duration_ns = number_at(j, "duration_ns");
  p.memory_throughput_pct = number_at(j, "memory_throughput_pct");
  p.compute_throughput_pct = number_at(j, "compute_throughput_pct");
  p.achieved_occupancy_pct = number_at(j, "achieved_occupancy_pct");
  if (auto it = j.find("top_stalls"); it != j.end() && it->is_array())
    for (const auto& s : *it) {
      if (p.top_stalls.size() == kTopStalls) break;
      if (!s.is_object() || !s.contains("reason") || !s["reason"].is_string()) continue;
      auto share = number_at(s, "share");
      if (share) p.top_stalls.push_back({s["reason"].get<std::string>(), *share});
    }
  if (!p.has_figures()) return std::nullopt;
  return p;
}

}  // namespace kf::eval
