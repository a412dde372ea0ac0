// The roofline's arithmetic: the table of GPU peaks, the device's roofs, fractions of peak.
#include <gtest/gtest.h>

#include "verdict/roofline.h"

namespace kf::eval {
namespace {

TEST(GpuTable, TorchDeviceNamesFindTheirEntries) {
  struct Case {
    const char* name;
    const char* entry;
    double bandwidth;
  };
  for (const auto& c : std::vector<Case>{{"NVIDIA H100 80GB HBM3", "H100 SXM", 3350},
                                         {"NVIDIA H100 PCIe", "H100 PCIe", 2000},
                                         {"NVIDIA H100 NVL", "H100 NVL", 3900},
                                         {"NVIDIA H200", "H200", 4800},
                                         {"NVIDIA H200 NVL", "H200 NVL", 4800},
                                         {"NVIDIA A100-SXM4-40GB", "A100 40GB", 1555},
                                         {"NVIDIA A100-PCIE-40GB", "A100 40GB", 1555},
                                         {"NVIDIA A100-SXM4-80GB", "A100 80GB SXM", 2039},
                                         {"NVIDIA A100 80GB PCIe", "A100 80GB PCIe", 1935},
                                         {"NVIDIA B200", "B200", 8000},
                                         {"NVIDIA L40S", "L40S", 864},
                                         {"NVIDIA GeForce RTX 4090", "RTX 4090", 1008}}) {
    auto spec = known_gpu(c.name);
    ASSERT_TRUE(spec.has_value()) << c.name;
    EXPECT_EQ(spec->name, c.entry) << c.name;
    EXPECT_DOUBLE_EQ(spec->bandwidth_gbps, c.bandwidth) << c.name;
    EXPECT_GT(spec->fp32_tflops, 0) << c.name;
    EXPECT_GE(spec->bf16_tflops, spec->tf32_tflops) << c.name;
  }
  auto h200 = known_gpu("NVIDIA H200");
  EXPECT_DOUBLE_EQ(h200->fp32_tflops, 67);
  EXPECT_DOUBLE_EQ(h200->bf16_tflops, 989.5);         // 1,979 TFLOP/s with sparsity, halved
  EXPECT_FALSE(known_gpu("NVIDIA L40").has_value());  // an L40 is not an L40S
  EXPECT_FALSE(known_gpu("Tesla V100-SXM2-16GB").has_value());
  EXPECT_FALSE(known_gpu("").has_value());
}

TEST(DevicePeaks, KnownGpuNominalUnknownGpuAndHostMeasured) {
  auto known = device_peaks("NVIDIA H200", true, 4100.0, {{"float32", 50.0}});
  EXPECT_EQ(known.source, "table");
  EXPECT_DOUBLE_EQ(known.bandwidth_gbps, 4800);
  EXPECT_DOUBLE_EQ(known.tflops.at("tf32"), 494.5);
  ASSERT_TRUE(known.measured_bandwidth_gbps.has_value());
  EXPECT_DOUBLE_EQ(*known.measured_bandwidth_gbps, 4100);  // beside the nominal figure
  EXPECT_TRUE(known.note.empty());

  auto unknown = device_peaks("Tesla V100-SXM2-16GB", true, 800.0, {{"float32", 14.0}, {"float16", 90.0}});
  EXPECT_EQ(unknown.source, "measured");
  EXPECT_DOUBLE_EQ(unknown.bandwidth_gbps, 800);
  EXPECT_DOUBLE_EQ(unknown.tflops.at("float16"), 90);
  EXPECT_NE(unknown.note.find("not in kforge's table"), std::string::npos) << unknown.note;

  auto host = device_peaks("AMD EPYC 7B13", false, 10.0, {{"float32", 0.1}});
  EXPECT_EQ(host.source, "measured");
  EXPECT_NE(host.note.find("host backend"), std::string::npos);
  auto back = DevicePeaks::from_json(host.to_json());
  EXPECT_EQ(back.device, host.device);
  EXPECT_DOUBLE_EQ(back.bandwidth_gbps, 10);
  EXPECT_DOUBLE_EQ(back.tflops.at("float32"), 0.1);
}

TEST(FractionOfPeak, MemoryBoundElementwise) {
  // ReLU on 2^28 float32 elements: 1 GiB read + 1 GiB written = 2^31 bytes; 2^28 other FLOPs.
  Work w;
  w.bytes = 2147483648.0;
  w.other_flops = 268435456.0;
  auto h200 = device_peaks("NVIDIA H200", true, std::nullopt, {});
  auto f = fraction_of_peak(w, h200, 0.6);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->bound_by, "memory");
  EXPECT_NEAR(f->memory_ms, 2147483648.0 / 4.8e12 * 1e3, 1e-9);  // 0.447 ms
  EXPECT_NEAR(f->compute_ms, 268435456.0 / 67e12 * 1e3, 1e-12);
  EXPECT_DOUBLE_EQ(f->bound_ms, f->memory_ms);
  EXPECT_NEAR(f->fraction, f->memory_ms / 0.6, 1e-12);  // 74.6%
  EXPECT_NEAR(f->achieved_gbps, 2147483648.0 / 0.6e-3 / 1e9, 1e-6);
  EXPECT_NEAR(f->achieved_tflops, 268435456.0 / 0.6e-3 / 1e12, 1e-12);
  EXPECT_EQ(percent_of_bound(*f), "74.6% of the memory bound");
}

TEST(FractionOfPeak, ComputeBoundMatmulByDtype) {
  // 4096^3 matmul: 2 * 4096^3 FLOPs; three 4096^2 matrices.
  const double n = 4096, flops = 2 * n * n * n;
  auto h100 = device_peaks("NVIDIA H100 80GB HBM3", true, std::nullopt, {});
  Work fp32;
  fp32.flops["float32"] = flops;
  fp32.bytes = 3 * n * n * 4;
  auto f = fraction_of_peak(fp32, h100, 3.0);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->bound_by, "compute");
  EXPECT_NEAR(f->compute_ms, flops / 67e12 * 1e3, 1e-9);  // CUDA-core fp32: TF32 is off by default
  EXPECT_NEAR(f->fraction, f->compute_ms / 3.0, 1e-12);
  // With reduced precision allowed the fp32 roof is TF32's.
  auto t = fraction_of_peak(fp32, h100, 3.0, /*tf32=*/true);
  EXPECT_NEAR(t->compute_ms, flops / 494.5e12 * 1e3, 1e-9);
  Work bf16;
  bf16.flops["bfloat16"] = flops;
  bf16.bytes = 3 * n * n * 2;
  auto b = fraction_of_peak(bf16, h100, 0.5);
  EXPECT_NEAR(b->compute_ms, flops / 989.5e12 * 1e3, 1e-9);
  // A dtype without its own roof (float64) is held to the float32 one.
  Work fp64;
  fp64.flops["float64"] = flops;
  EXPECT_NEAR(fraction_of_peak(fp64, h100, 10.0)->compute_ms, flops / 67e12 * 1e3, 1e-9);
}

TEST(FractionOfPeak, NothingToMeasureAgainst) {
  Work w;
  w.bytes = 1e6;
  EXPECT_FALSE(fraction_of_peak(w, DevicePeaks{}, 1.0).has_value());  // no roofs at all
  auto h200 = device_peaks("NVIDIA H200", true, std::nullopt, {});
  EXPECT_FALSE(fraction_of_peak(w, h200, 0.0).has_value());
  EXPECT_FALSE(fraction_of_peak(w, h200, -1.0).has_value());
}

TEST(MeanWork, TimedRoundsDrawEveryShapeAlike) {
  Work a, b;
  a.flops["float32"] = 100;
  a.bytes = 10;
  b.flops["float32"] = 300;
  b.flops["float16"] = 50;
  b.bytes = 30;
  b.other_flops = 4;
  Work m = mean_work({a, b});
  EXPECT_DOUBLE_EQ(m.flops["float32"], 200);
  EXPECT_DOUBLE_EQ(m.flops["float16"], 25);
  EXPECT_DOUBLE_EQ(m.bytes, 20);
  EXPECT_DOUBLE_EQ(m.other_flops, 2);
  EXPECT_DOUBLE_EQ(m.matmul_flops(), 225);
}

}  // namespace
}  // namespace kf::eval
