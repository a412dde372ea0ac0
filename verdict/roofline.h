#pragma once
// The second yardstick: how close a measured time comes to what the hardware allows (the roofline). A
// problem's work per call (FLOPs by dtype, the minimum bytes moved) comes from the oracle; the device's
// peaks from a table of known GPUs (nominal figures) or from measurements (host, unknown GPUs).
// docs/evaluator.md, "Yardsticks".
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kf::eval {

// One reference call's work on one shape.
struct Work {
  std::map<std::string, double> flops;  // torch's FLOP counter (matmul, convolution, attention) by dtype
  double other_flops = 0;               // pointwise, reductions, softmax: an estimate (docs/evaluator.md)
  double bytes = 0;                     // every input and the model's state read once, every output written once
  double matmul_flops() const;          // the sum of `flops`
  nlohmann::json to_json() const;
  static Work from_json(const nlohmann::json& j);  // missing or mistyped fields read as 0
};
// The mean of several shapes' work (timed rounds draw each of them equally often).
Work mean_work(const std::vector<Work>& shapes);

// Nominal figures of a known GPU: dense (no sparsity) peaks in TFLOP/s, memory bandwidth in GB/s.
struct GpuSpec {
  std::string_view name;
  double bandwidth_gbps;
  double fp32_tflops;                            // CUDA cores (fp32 matmuls with TF32 off, the evaluator's default)
  double tf32_tflops, bf16_tflops, fp16_tflops;  // tensor cores, fp32 accumulation
};
// The table's entry for a device name as torch reports it ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB").
std::optional<GpuSpec> known_gpu(std::string_view device_name);

// What the roofline is measured against on this machine.
struct DevicePeaks {
  std::string device;
  std::string source;                             // table | measured
  std::string note;                               // why measured figures stand in, when they do
  double bandwidth_gbps = 0;                      // the memory roof
  std::map<std::string, double> tflops;           // compute roofs: float32, tf32, bfloat16, float16
  std::optional<double> measured_bandwidth_gbps;  // device copy, bytes read + written per second
  std::map<std::string, double> measured_tflops;  // a square matmul per dtype
  nlohmann::json to_json() const;
  static DevicePeaks from_json(const nlohmann::json& j);
};
// A GPU in the table gets its nominal roofs (the measured ones beside them); the host and an unknown GPU get
// the measured ones, and say so.
DevicePeaks device_peaks(const std::string& device, bool gpu, std::optional<double> measured_bandwidth_gbps,
                         const std::map<std::string, double>& measured_tflops);

// A measured time against the roofline.
struct PeakFraction {
  double time_ms = 0;
  double memory_ms = 0;   // bytes / bandwidth
  double compute_ms = 0;  // FLOPs of each dtype / that dtype's peak, plus other FLOPs / the float32 peak
  double bound_ms = 0;    // max(memory_ms, compute_ms)
  std::string bound_by;   // memory | compute
  double fraction = 0;    // bound_ms / time_ms: 1 is the roof
  double achieved_gbps = 0;
  double achieved_tflops = 0;  // all counted FLOPs / time
  nlohmann::json to_json() const;
  static std::optional<PeakFraction> from_json(const nlohmann::json& j);
};
// nullopt when the time is not positive or the device has no roof to measure against. `tf32`: float32
// matmuls may run on TF32 tensor cores (reduced precision allowed), so their roof is the TF32 peak.
std::optional<PeakFraction> fraction_of_peak(const Work& work, const DevicePeaks& peaks, double time_ms,
                                             bool tf32 = false);

// "38% of the memory bound" (the fraction as a whole percentage, the resource that bounds it).
std::string percent_of_bound(const PeakFraction& f);
// The device's roofs in one line: "H200 (table): 4800 GB/s, float32 67 TFLOP/s, ...; measured copy 4100 GB/s".
std::string describe_peaks(const DevicePeaks& p);

}  // namespace kf::eval
