#include "providers/rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace kf::providers {
namespace {

struct FakeClock {
  double now = 100;
  MonotonicClock fn() {
    return [this] { return now; };
  }
};

TEST(TokenBucket, StartsFullThenMakesCallersWait) {
  FakeClock clock;
  TokenBucket bucket(/*rate_per_s=*/2, /*capacity=*/4, clock.fn());
  for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(bucket.reserve(1), 0) << i;
  EXPECT_DOUBLE_EQ(bucket.reserve(1), 0.5);
  EXPECT_DOUBLE_EQ(bucket.reserve(1), 1.0) << "waiters queue behind each other";
}

TEST(TokenBucket, RefillsWithTimeUpToCapacity) {
  FakeClock clock;
  TokenBucket bucket(1, 3, clock.fn());
  bucket.reserve(3);
  clock.now += 2;
  EXPECT_DOUBLE_EQ(bucket.available(), 2);
  clock.now += 100;
  EXPECT_DOUBLE_EQ(bucket.available(), 3);
}

TEST(TokenBucket, OversizedRequestIsClampedToCapacity) {
  FakeClock clock;
  TokenBucket bucket(10, 50, clock.fn());
  EXPECT_DOUBLE_EQ(bucket.reserve(1000), 0) << "a full bucket lets any single request through";
  EXPECT_DOUBLE_EQ(bucket.reserve(1000), 5) << "the next one waits for a full refill";
}

TEST(TokenBucket, RefundReturnsUnusedTokens) {
  FakeClock clock;
  TokenBucket bucket(1, 10, clock.fn());
  bucket.reserve(10);
  bucket.refund(4);
  EXPECT_DOUBLE_EQ(bucket.available(), 4);
  bucket.refund(100);
  EXPECT_DOUBLE_EQ(bucket.available(), 10);
}

TEST(TokenBucket, ZeroRateIsUnlimited) {
  FakeClock clock;
  TokenBucket bucket(0, 0, clock.fn());
  for (int i = 0; i < 1000; ++i) EXPECT_DOUBLE_EQ(bucket.reserve(1e6), 0);
}

TEST(ConcurrencyLimit, NeverExceedsTheCap) {
  ConcurrencyLimit limit(3);
  std::atomic<int> now{0}, peak{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        limit.acquire();
        const int n = ++now;
        int p = peak.load();
        while (n > p && !peak.compare_exchange_weak(p, n)) {
        }
        std::this_thread::yield();
        --now;
        limit.release();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(peak.load(), 3);
  EXPECT_EQ(limit.in_flight(), 0);
}

TEST(RateLimiter, BucketsHoldTenSecondsOfTheirRate) {
  FakeClock clock;
  RateLimits limits;
  limits.requests_per_minute = 60;
  limits.tokens_per_minute = 6000;
  RateLimiter limiter(limits, clock.fn());
  EXPECT_DOUBLE_EQ(limiter.requests().available(), 10);
  EXPECT_DOUBLE_EQ(limiter.tokens().available(), 1000);
}

}  // namespace
}  // namespace kf::providers
