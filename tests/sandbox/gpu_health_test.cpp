// GPU health: memory query and canary kernel. Skips without a GPU.
#include <gtest/gtest.h>

#include "sandbox/gpu_health.h"

namespace {

TEST(GpuHealth, HealthyIdleGpuPassesTheCanary) {
  auto mem = kf::sandbox::gpu_memory(0);
  if (!mem.ok()) GTEST_SKIP() << "no GPU: " << mem.error().message;
  EXPECT_GT(mem->total_bytes, 0u);
  auto canary = kf::sandbox::run_canary_kernel(0);
  EXPECT_TRUE(canary.ok()) << canary.error().message;
  const auto h = kf::sandbox::check_gpu_health(0, mem->used_bytes);
  EXPECT_TRUE(h.healthy) << h.problem;
}

TEST(GpuHealth, MissingDeviceIsReportedNotCrashed) {
  auto mem = kf::sandbox::gpu_memory(0);
  if (!mem.ok()) GTEST_SKIP() << "no GPU";
  const auto h = kf::sandbox::check_gpu_health(4096, 0, 0.1);
  EXPECT_FALSE(h.healthy);
  EXPECT_FALSE(h.problem.empty());
}

}  // namespace
