#include "verdict/roofline.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/format.h"

namespace kf::eval {
namespace {

double number_or_zero(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string string_or_empty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::map<std::string, double> number_map(const nlohmann::json& j) {
  std::map<std::string, double> out;
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (v.is_number()) out[k] = v.get<double>();
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Dense peaks (NVIDIA's datasheets print tensor-core figures "with sparsity": halved here). Ordered so that
// the first entry whose every word appears in the device's name is the right one (PCIe and NVL before SXM).
struct Entry {
  std::array<std::string_view, 3> words;
  GpuSpec spec;
};
constexpr Entry kTable[] = {
    // NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100): H100 PCIe 80 GB: 2 TB/s,
    // FP32 51 TF, TF32 756 TF*, BF16/FP16 1,513 TF* (* with sparsity).
    {{"h100", "pcie", ""}, {"H100 PCIe", 2000, 51, 378, 756.5, 756.5}},
    // Same datasheet, H100 NVL: 3.9 TB/s, FP32 60 TF, TF32 835 TF*, BF16/FP16 1,671 TF*.
    {{"h100", "nvl", ""}, {"H100 NVL", 3900, 60, 417.5, 835.5, 835.5}},
    // Same datasheet, H100 SXM (torch: "NVIDIA H100 80GB HBM3"): 3.35 TB/s, FP32 67 TF, TF32 989 TF*,
    // BF16/FP16 1,979 TF*.
    {{"h100", "", ""}, {"H100 SXM", 3350, 67, 494.5, 989.5, 989.5}},
    // NVIDIA H200 datasheet (nvidia.com/en-us/data-center/h200): H200 NVL: 4.8 TB/s, FP32 60 TF, TF32 835 TF*,
    // BF16/FP16 1,671 TF*.
    {{"h200", "nvl", ""}, {"H200 NVL", 4800, 60, 417.5, 835.5, 835.5}},
    // Same datasheet, H200 SXM: 4.8 TB/s, FP32 67 TF, TF32 989 TF*, BF16/FP16 1,979 TF*.
    {{"h200", "", ""}, {"H200", 4800, 67, 494.5, 989.5, 989.5}},
    // NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100): A100 80GB PCIe 1,935 GB/s,
    // A100 80GB SXM 2,039 GB/s, A100 40GB (PCIe and SXM) 1,555 GB/s; FP32 19.5 TF, TF32 156 TF, BF16/FP16
    // 312 TF (dense figures; twice that with sparsity).
    {{"a100", "80gb", "pcie"}, {"A100 80GB PCIe", 1935, 19.5, 156, 312, 312}},
    {{"a100", "80gb", ""}, {"A100 80GB SXM", 2039, 19.5, 156, 312, 312}},
    {{"a100", "", ""}, {"A100 40GB", 1555, 19.5, 156, 312, 312}},
    // NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx), eight GPUs: 64 TB/s HBM3e, FP32 600 TF,
    // TF32 18 PF*, BF16/FP16 36 PF*: per GPU 8 TB/s, 75 TF, and 1.125 / 2.25 PF dense.
    {{"b200", "", ""}, {"B200", 8000, 75, 1125, 2250, 2250}},
    // NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s): 864 GB/s, FP32 91.6 TF, TF32 366 TF*,
    // BF16/FP16 733 TF*.
    {{"l40s", "", ""}, {"L40S", 864, 91.6, 183, 366.5, 366.5}},
    // NVIDIA Ada Lovelace architecture whitepaper (v2.1), appendix table for the GeForce RTX 4090: 1,008 GB/s,
    // FP32 82.6 TF, TF32 82.6 TF, BF16 and FP16 with FP32 accumulation 165.2 TF (dense).
    {{"4090", "", ""}, {"RTX 4090", 1008, 82.6, 82.6, 165.2, 165.2}},
};

}  // namespace

double Work::matmul_flops() const {
  double s = 0;
  for (const auto& [dtype, n] : flops) s += n;
  return s;
}

nlohmann::json Work::to_json() const { return {{"flops", flops}, {"other_flops", other_flops}, {"bytes", bytes}}; }

Work Work::from_json(const nlohmann::json& j) {
  Work w;
  if (!j.is_object()) return w;
  if (auto it = j.find("flops"); it != j.end()) w.flops = number_map(*it);
  w.other_flops = number_or_zero(j, "other_flops");
  w.bytes = number_or_zero(j, "bytes");
  return w;
}

Work mean_work(const std::vector<Work>& shapes) {
  Work m;
  if (shapes.empty()) return m;
  const double n = static_cast<double>(shapes.size());
  for (const auto& w : shapes) {
    for (const auto& [dtype, f] : w.flops) m.flops[dtype] += f / n;
    m.other_flops += w.other_flops / n;
    m.bytes += w.bytes / n;
  }
  return m;
}

std::optional<GpuSpec> known_gpu(std::string_view device_name) {
  const std::string name = lower(device_name);
  for (const auto& e : kTable) {
    bool all = true;
    for (auto w : e.words) all = all && (w.empty() || name.find(w) != std::string::npos);
    if (all) return e.spec;
  }
  return std::nullopt;
}

nlohmann::json DevicePeaks::to_json() const {
  nlohmann::json j{{"device", device},
                   {"source", source},
                   {"bandwidth_gbps", bandwidth_gbps},
                   {"tflops", tflops},
                   {"measured_tflops", measured_tflops}};
  j["measured_bandwidth_gbps"] = measured_bandwidth_gbps ? nlohmann::json(*measured_bandwidth_gbps) : nullptr;
  if (!note.empty()) j["note"] = note;
  return j;
}

DevicePeaks DevicePeaks::from_json(const nlohmann::json& j) {
  DevicePeaks p;
  if (!j.is_object()) return p;
  p.device = string_or_empty(j, "device");
  p.source = string_or_empty(j, "source");
  p.note = string_or_empty(j, "note");
  p.bandwidth_gbps = number_or_zero(j, "bandwidth_gbps");
  if (auto it = j.find("tflops"); it != j.end()) p.tflops = number_map(*it);
  if (auto it = j.find("measured_tflops"); it != j.end()) p.measured_tflops = number_map(*it);
  if (auto it = j.find("measured_bandwidth_gbps"); it != j.end() && it->is_number())
    p.measured_bandwidth_gbps = it->get<double>();
  return p;
}

DevicePeaks device_peaks(const std::string& device, bool gpu, std::optional<double> measured_bandwidth_gbps,
                         const std::map<std::string, double>& measured_tflops) {
  DevicePeaks p;
  p.device = device;
  p.measured_bandwidth_gbps = measured_bandwidth_gbps;
  p.measured_tflops = measured_tflops;
  if (gpu) {
    if (auto spec = known_gpu(device)) {
      p.source = "table";
      p.bandwidth_gbps = spec->bandwidth_gbps;
      p.tflops = {{"float32", spec->fp32_tflops},
                  {"tf32", spec->tf32_tflops},
                  {"bfloat16", spec->bf16_tflops},
                  {"float16", spec->fp16_tflops}};
      return p;
    }
    p.note = "'" + device +
             "' is not in kforge's table of GPUs: its roofs are measured figures (a device copy, "
             "a square matmul per dtype), which lie below the nominal peaks";
  } else {
    p.note = "host backend: the roofs are measured figures (a 64 MiB copy, a float32 matmul)";
  }
  p.source = "measured";
  p.bandwidth_gbps = measured_bandwidth_gbps.value_or(0);
  p.tflops = measured_tflops;
  return p;
}

nlohmann::json PeakFraction::to_json() const {
  return {{"time_ms", time_ms},
          {"memory_ms", memory_ms},
          {"compute_ms", compute_ms},
          {"bound_ms", bound_ms},
          {"bound_by", bound_by},
          {"fraction", fraction},
          {"achieved_gbps", achieved_gbps},
          {"achieved_tflops", achieved_tflops}};
}

std::optional<PeakFraction> PeakFraction::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("fraction") || !j["fraction"].is_number()) return std::nullopt;
  PeakFraction f;
  f.time_ms = number_or_zero(j, "time_ms");
  f.memory_ms = number_or_zero(j, "memory_ms");
  f.compute_ms = number_or_zero(j, "compute_ms");
  f.bound_ms = number_or_zero(j, "bound_ms");
  f.bound_by = string_or_empty(j, "bound_by");
  f.fraction = number_or_zero(j, "fraction");
  f.achieved_gbps = number_or_zero(j, "achieved_gbps");
  f.achieved_tflops = number_or_zero(j, "achieved_tflops");
  return f;
}

std::optional<PeakFraction> fraction_of_peak(const Work& work, const DevicePeaks& peaks, double time_ms, bool tf32) {
  if (!(time_ms > 0)) return std::nullopt;
  auto roof = [&](const std::string& dtype) {
    std::string key = dtype == "float32" && tf32 ? "tf32" : dtype;
    auto it = peaks.tflops.find(key);
    if (it == peaks.tflops.end() || !(it->second > 0)) it = peaks.tflops.find("float32");  // float64, ints, ...
    return it != peaks.tflops.end() && it->second > 0 ? it->second : 0.0;
  };
  PeakFraction f;
  f.time_ms = time_ms;
  bool any_roof = false;
  if (peaks.bandwidth_gbps > 0) {
    f.memory_ms = work.bytes / (peaks.bandwidth_gbps * 1e9) * 1e3;
    any_roof = true;
  }
  for (const auto& [dtype, n] : work.flops)
    if (double r = roof(dtype); r > 0 && n > 0) {
      f.compute_ms += n / (r * 1e12) * 1e3;
      any_roof = true;
    }
  if (double r = roof("float32"); r > 0 && work.other_flops > 0) {
    f.compute_ms += work.other_flops / (r * 1e12) * 1e3;
    any_roof = true;
  }
  if (!any_roof) return std::nullopt;
  f.bound_by = f.compute_ms > f.memory_ms ? "compute" : "memory";
  f.bound_ms = std::max(f.memory_ms, f.compute_ms);
  f.fraction = f.bound_ms / time_ms;
  f.achieved_gbps = work.bytes / (time_ms * 1e-3) / 1e9;
  f.achieved_tflops = (work.matmul_flops() + work.other_flops) / (time_ms * 1e-3) / 1e12;
  return f;
}

std::string percent_of_bound(const PeakFraction& f) {
  return format_significant(f.fraction * 100, 3) + "% of the " + f.bound_by + " bound";
}

std::string describe_peaks(const DevicePeaks& p) {
  std::string out = p.device + " (" + p.source + "): " + format_significant(p.bandwidth_gbps, 4) + " GB/s";
  for (const auto& [dtype, t] : p.tflops) out += ", " + dtype + " " + format_significant(t, 4) + " TFLOP/s";
  if (p.source == "table" && p.measured_bandwidth_gbps)
    out += "; measured copy " + format_significant(*p.measured_bandwidth_gbps, 4) + " GB/s";
  return out;
}

}  // namespace kf::eval
