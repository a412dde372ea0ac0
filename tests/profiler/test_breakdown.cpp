#include <gtest/gtest.h>

#include "profiler/breakdown.h"
#include "profiler/rules.h"
#include "profiler/trace.h"

using namespace kf::profiler;

namespace {

KernelRules fixture_rules() {
  auto r = KernelRules::load(KFORGE_TEST_SOURCE_DIR "/tests/profiler/fixtures/rules.json");
  EXPECT_TRUE(r.ok());
  return std::move(r).value();
}

const char* kActivities = R"(
{"type":"process","pid":1,"cupti_api_version":130001,"ts":1}
{"type":"kernel","name":"warmup_gemm","start":100,"end":900,"device":0,"context":1,"stream":7,"grid":[1,1,1],"block":[1,1,1]}
{"type":"kernel","name":"sm90_gemm_bf16","start":1000,"end":1400,"device":0,"context":1,"stream":7,"grid":[1,1,1],"block":[1,1,1]}
{"type":"kernel","name":"vectorized_elementwise_kernel","start":1300,"end":1500,"device":0,"context":1,"stream":8,"grid":[1,1,1],"block":[1,1,1]}
{"type":"memcpy","copy_kind":"HtoD","bytes":4096,"start":1600,"end":1700,"device":0,"context":1,"stream":7}
{"type":"kernel","name":"softmax_warp_forward","start":1950,"end":2100,"device":0,"context":1,"stream":7,"grid":[1,1,1],"block":[1,1,1]}
{"type":"summary","pid":1,"kernels":4,"copies":1,"memsets":0,"markers":2,"overhead_records":0,"overhead_ns":7,"dropped":3}
)";

}  // namespace

TEST(ProfilerBreakdown, NvtxRegionExcludesWarmUpAndSharesOverlap) {
  Trace trace;
  parse_trace_text(std::string(kActivities) +
                       R"({"type":"marker","phase":"start","name":"kforge.measure","id":5,"ts":1000}
{"type":"marker","phase":"start","name":"other.range","id":6,"ts":1000}
{"type":"marker","phase":"end","name":"","id":5,"ts":2000}
{"type":"marker","phase":"end","name":"","id":6,"ts":5000}
)",
                   trace);
  EXPECT_EQ(trace.processes, 1u);
  EXPECT_EQ(trace.complete_processes, 1u);
  const Breakdown b = compute_breakdown(trace, fixture_rules(), "kforge.measure");
  EXPECT_EQ(b.region_source, "nvtx");
  EXPECT_EQ(b.wall_ns, 1000u);
  EXPECT_EQ(b.busy_ns, 500u + 100u + 50u);
  EXPECT_EQ(b.gpu_span_ns, 1000u);
  EXPECT_EQ(b.kernel_count, 3u);
  EXPECT_EQ(b.copy_count, 1u);
  EXPECT_DOUBLE_EQ(b.classes.at("gemm_conv").time_ns, 350.0);
  EXPECT_DOUBLE_EQ(b.classes.at("elementwise_reduction").time_ns, 150.0);
  EXPECT_DOUBLE_EQ(b.classes.at("norm_softmax").time_ns, 50.0);
  EXPECT_DOUBLE_EQ(b.classes.at("copy").time_ns, 100.0);
  EXPECT_DOUBLE_EQ(b.classes.at("idle").time_ns, 350.0);
  EXPECT_DOUBLE_EQ(b.tier_ns.at("core"), 200.0);
  EXPECT_DOUBLE_EQ(b.tier_ns.at("vendor"), 350.0);
  EXPECT_DOUBLE_EQ(b.tier_ns.at("not_addressable"), 450.0);
  EXPECT_DOUBLE_EQ(b.addressable_fraction, 0.2);
  EXPECT_DOUBLE_EQ(b.vendor_fraction, 0.35);
  EXPECT_EQ(b.dropped, 3u);
  ASSERT_FALSE(b.warnings.empty());  // the dropped records are reported
  EXPECT_NE(b.warnings[0].find("dropped"), std::string::npos);
}

TEST(ProfilerBreakdown, ExplicitMarksAreUsedWhenNoNvtxRangeHasTheName) {
  Trace trace;
  parse_trace_text(std::string(kActivities) + R"({"type":"region","phase":"begin","name":"kforge.measure","ts":1000}
{"type":"region","phase":"end","name":"kforge.measure","ts":1500}
)",
                   trace);
  const Breakdown b = compute_breakdown(trace, fixture_rules(), "kforge.measure");
  EXPECT_EQ(b.region_source, "explicit");
  EXPECT_EQ(b.wall_ns, 500u);
  EXPECT_EQ(b.busy_ns, 500u);
  EXPECT_DOUBLE_EQ(b.addressable_fraction, 150.0 / 500.0);
}

TEST(ProfilerBreakdown, WithoutMarksTheWholeTraceIsMeasuredAndAWarningSaysSo) {
  Trace trace;
  parse_trace_text(kActivities, trace);
  const Breakdown b = compute_breakdown(trace, fixture_rules(), "kforge.measure");
  EXPECT_EQ(b.region_source, "none");
  EXPECT_EQ(b.wall_ns, 2000u);  // 100 .. 2100
  bool warned = false;
  for (const auto& w : b.warnings) warned |= w.find("warm-up included") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ProfilerBreakdown, TruncatedFilesAndLibraryStatusAreReported) {
  Trace trace;
  parse_trace_text(
      R"({"type":"status","event":"multiple_subscribers","message":"another CUPTI client already profiles this process"}
{"type":"kernel","name":"k","start":0,"end":10}
{"type":"kernel","name":"cut sh)",
      trace);
  EXPECT_EQ(trace.malformed_lines, 1u);
  EXPECT_EQ(trace.complete_processes, 0u);
  const Breakdown b = compute_breakdown(trace, fixture_rules(), "kforge.measure");
  std::string all;
  for (const auto& w : b.warnings) all += w + "\n";
  EXPECT_NE(all.find("without flushing"), std::string::npos) << all;
  EXPECT_NE(all.find("another CUPTI client"), std::string::npos) << all;
}

TEST(ProfilerBreakdown, JsonRoundTripKeepsWhatTheProjectionNeeds) {
  Trace trace;
  parse_trace_text(std::string(kActivities) + R"({"type":"region","phase":"begin","name":"kforge.measure","ts":1000}
{"type":"region","phase":"end","name":"kforge.measure","ts":2000}
)",
                   trace);
  const Breakdown b = compute_breakdown(trace, fixture_rules(), "kforge.measure");
  const auto j = breakdown_to_json(b, 10);
  EXPECT_EQ(j["kernels"].size(), 4u);  // three kernels and one copy, by name
  auto back = breakdown_from_json(j, "mem");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->wall_ns, b.wall_ns);
  EXPECT_DOUBLE_EQ(back->addressable_fraction, b.addressable_fraction);
  EXPECT_NEAR(back->classes.at("gemm_conv").time_ns, 350.0, 1e-6);
  EXPECT_FALSE(breakdown_from_json(nlohmann::json::object(), "x").ok());
  EXPECT_FALSE(format_breakdown(b, 5).empty());
}
