// The clean-device rule (evaluator/device_check.h) on what a CPU can show: the host's process check and the
// retiming of a baseline whose device was not clean before or after it.
#include <gtest/gtest.h>

#include "evaluator/device_check.h"

using namespace kf::eval;

TEST(DeviceState, HostCheckIsTheRunnersProcessTree) {
  nlohmann::json host{{"ok", true}, {"clean", nullptr}, {"checked", "host"}};
  EXPECT_EQ(device_state(host, true).clean, true);
  EXPECT_FALSE(device_state(host, true).record.contains("device_unverified"));
  EXPECT_EQ(device_state(host, false).clean, false);
  EXPECT_EQ(device_state(host, false).record["runner_tree_empty"], false);
}

TEST(DeviceState, GpuCheckDecidesWhenTheTreeIsEmpty) {
  nlohmann::json left{{"clean", false}, {"checked", "nvml"}, {"runner_processes_left", {{{"pid", 7}, {"bytes", 1}}}}};
  EXPECT_EQ(device_state(left, true).clean, false);
  EXPECT_EQ(device_state({{"clean", true}, {"checked", "nvml"}}, true).clean, true);
  // NVML unavailable: not held against anyone, but the verdict says the device side went unverified.
  auto unknown = device_state({{"clean", nullptr}, {"checked", "none"}}, true);
  EXPECT_EQ(unknown.clean, true);
  EXPECT_EQ(unknown.record["device_unverified"], true);
  // Hostile or broken answers are read by type.
  EXPECT_EQ(device_state({{"clean", "yes"}}, false).clean, false);
  EXPECT_EQ(device_state(nlohmann::json::array(), true).clean, true);
}

namespace {
// A device whose checks answer from a script, and a baseline that counts its timings.
struct Script {
  std::vector<bool> answers;
  size_t next = 0;
  int timings = 0;
  kf::Result<DeviceState> check() {
    DeviceState s;
    s.clean = next < answers.size() ? answers[next] : true;
    ++next;
    s.record = {{"clean", *s.clean}};
    return s;
  }
  kf::Result<kf::eval::TimingSummary> time() {
    kf::eval::TimingSummary t;
    t.median_ms = 1.0 + timings++;
    return t;
  }
};
}  // namespace

TEST(TimeOnCleanDevice, CleanDeviceTimesOnce) {
  Script s{{true, true}};
  nlohmann::json log = nlohmann::json::array();
  auto r = time_on_clean_device([&] { return s.check(); }, [&] { return s.time(); }, 3, &log);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(s.timings, 1);
  EXPECT_EQ(r->median_ms, 1.0);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].contains("after"));
}

TEST(TimeOnCleanDevice, DirtAfterTheTimingDiscardsItAndRetimes) {
  Script s{{true, false, true, true}};
  auto r = time_on_clean_device([&] { return s.check(); }, [&] { return s.time(); }, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(s.timings, 2);
  EXPECT_EQ(r->median_ms, 2.0);  // the second timing, never the first
}

TEST(TimeOnCleanDevice, DirtBeforeTheTimingSkipsIt) {
  Script s{{false, true, true}};
  auto r = time_on_clean_device([&] { return s.check(); }, [&] { return s.time(); }, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(s.timings, 1);
}

TEST(TimeOnCleanDevice, ADeviceThatStaysDirtyGivesNoBaseline) {
  Script s{{true, false, true, false, true, false}};
  auto r = time_on_clean_device([&] { return s.check(); }, [&] { return s.time(); }, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "device.not_clean");
  EXPECT_EQ(s.timings, 3);
}
