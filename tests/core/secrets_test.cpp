#include "core/secrets.h"

#include <gtest/gtest.h>

TEST(Secrets, RedactsEveryOccurrence) {
  kf::secrets::add("sk-test-0123456789");
  EXPECT_EQ(kf::secrets::redact("a sk-test-0123456789 b sk-test-0123456789"), "a [REDACTED] b [REDACTED]");
}

TEST(Secrets, IgnoresShortValues) {
  kf::secrets::add("abc");
  EXPECT_EQ(kf::secrets::redact("abc"), "abc");
}
