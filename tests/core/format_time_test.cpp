// core/format.h and core/time.h: the one number formatter and the one UTC timestamp helper.
#include <gtest/gtest.h>

#include <chrono>

#include "core/format.h"
#include "core/time.h"

namespace kf {
namespace {

TEST(Format, FixedDecimals) {
  EXPECT_EQ(format_fixed(1.23456, 2), "1.23");
  EXPECT_EQ(format_fixed(2.0, 0), "2");
  EXPECT_EQ(format_fixed(-0.5, 3), "-0.500");
  EXPECT_EQ(format_fixed(1e300, 1).size(), 303u) << "large values are not cut";
}

TEST(Format, SignificantDigits) {
  EXPECT_EQ(format_significant(0.000123456, 3), "0.000123");
  EXPECT_EQ(format_significant(1234567.0, 3), "1.23e+06");
  EXPECT_EQ(format_significant(2.5, 6), "2.5");
}

TEST(Time, UtcFormats) {
  // 2026-12-02T13:45:01.123Z
  const auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796219101123LL));
  EXPECT_EQ(utc_timestamp(UtcFormat::iso_ms, t), "2026-12-02T13:45:01.123Z");
  EXPECT_EQ(utc_timestamp(UtcFormat::compact_ms, t), "20261202T134501.123Z");
  EXPECT_EQ(utc_timestamp(UtcFormat::clock, t), "13:45:01");
  const auto epoch = std::chrono::system_clock::time_point(std::chrono::milliseconds(0));
  EXPECT_EQ(utc_timestamp(UtcFormat::iso_ms, epoch), "1970-01-01T00:00:00.000Z");
}

}  // namespace
}  // namespace kf
