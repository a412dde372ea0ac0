#include "providers/retry.h"

#include <gtest/gtest.h>

namespace kf::providers {
namespace {

TEST(RetryAfter, MillisecondsHeaderWins) {
  EXPECT_DOUBLE_EQ(*parse_retry_after({{"retry-after-ms", "250"}, {"retry-after", "9"}}, 0), 0.25);
}

TEST(RetryAfter, SecondsIncludingFractions) {
  EXPECT_DOUBLE_EQ(*parse_retry_after({{"retry-after", "3"}}, 0), 3.0);
  EXPECT_DOUBLE_EQ(*parse_retry_after({{"retry-after", " 0.2 "}}, 0), 0.2);
}

TEST(RetryAfter, HttpDateRelativeToNow) {
  // Sun, 06 Nov 1994 08:49:37 GMT = 784111777 s after the epoch.
  const HeaderMap h{{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}};
  EXPECT_DOUBLE_EQ(*parse_retry_after(h, 784111777.0 - 5), 5.0);
  EXPECT_DOUBLE_EQ(*parse_retry_after(h, 784111777.0 + 100), 0.0) << "a past date means now";
}

TEST(RetryAfter, AbsentOrGarbageIsNullopt) {
  EXPECT_FALSE(parse_retry_after({}, 0));
  EXPECT_FALSE(parse_retry_after({{"retry-after", "soon"}}, 0));
  EXPECT_FALSE(parse_retry_after({{"retry-after-ms", "-5"}}, 0));
}

TEST(ShouldRetry, ParsesTrueFalse) {
  EXPECT_EQ(parse_should_retry({{"x-should-retry", "true"}}), true);
  EXPECT_EQ(parse_should_retry({{"x-should-retry", "False"}}), false);
  EXPECT_FALSE(parse_should_retry({{"x-should-retry", "maybe"}}));
  EXPECT_FALSE(parse_should_retry({}));
}

TEST(Backoff, GrowsExponentiallyAndCaps) {
  RetryPolicy p;
  p.initial_backoff_s = 1;
  p.multiplier = 2;
  p.max_backoff_s = 5;
  p.jitter = 0;
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 1, 0.9), 1);
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 2, 0.9), 2);
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 3, 0.9), 4);
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 4, 0.9), 5);
}

TEST(Backoff, JitterSpansPlusMinusTheFraction) {
  RetryPolicy p;
  p.initial_backoff_s = 2;
  p.jitter = 0.25;
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 1, 0.0), 1.5);
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 1, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(backoff_seconds(p, 1, 1.0), 2.5);
}

TEST(Backoff, ServerWaitOverridesBackoff) {
  RetryPolicy p;
  p.initial_backoff_s = 10;
  EXPECT_DOUBLE_EQ(retry_delay_seconds(p, 1, 0.2, 0.5), 0.2);
  EXPECT_DOUBLE_EQ(retry_delay_seconds(p, 1, std::nullopt, 0.5), 10);
  EXPECT_DOUBLE_EQ(retry_delay_seconds(p, 1, -3, 0.5), 0) << "never negative";
}

TEST(RetryableStatus, MatchesTheDocumentedSet) {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 529}) EXPECT_TRUE(is_retryable_status(s)) << s;
  for (int s : {200, 400, 401, 403, 404, 413, 422}) EXPECT_FALSE(is_retryable_status(s)) << s;
}

}  // namespace
}  // namespace kf::providers
