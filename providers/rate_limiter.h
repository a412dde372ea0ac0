#pragma once
// Client-side limits for one provider: token buckets for requests/min and tokens/min, and a cap on
// requests in flight. Thread-safe. Buckets hand out reservations (the wait before proceeding)
// instead of polling, so waiting callers are served in arrival order.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "providers/model_config.h"

namespace kf::providers {

// Seconds on a monotonic clock; injectable for tests.
using MonotonicClock = std::function<double()>;
MonotonicClock steady_clock_seconds();

class TokenBucket {
 public:
  // `rate_per_s` <= 0 means unlimited. The bucket starts full.
  TokenBucket(double rate_per_s, double capacity, MonotonicClock clock);

  // Takes `amount` (clamped to the capacity, so a single large request can always proceed) and
  // returns how many seconds the caller must wait before using it. The bucket may go negative:
  // later callers then wait for the debt to refill.
  double reserve(double amount);
  // Returns unused tokens (e.g. when a request used fewer tokens than estimated).
  void refund(double amount);
  double available();

 private:
  void refill_locked();

  double rate_per_s_;
  double capacity_;
  MonotonicClock clock_;
  std::mutex mutex_;
  double level_;
  double last_;
};

class ConcurrencyLimit {
 public:
  explicit ConcurrencyLimit(int max_in_flight);  // <= 0 means unlimited
  void acquire();
  void release();
  int in_flight();

 private:
  int max_;
  int in_flight_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
};

class RateLimiter {
 public:
  // The buckets hold ten seconds' worth of their per-minute rate (at least one request / one
  // request's tokens), which smooths bursts the way providers measure them.
  RateLimiter(const RateLimits& limits, MonotonicClock clock);

  // RAII slot: holds one concurrency slot for its lifetime.
  class Slot {
   public:
    explicit Slot(ConcurrencyLimit* limit) : limit_(limit) {}
    Slot(Slot&& other) noexcept : limit_(other.limit_) { other.limit_ = nullptr; }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (limit_) limit_->release();
    }

   private:
    ConcurrencyLimit* limit_;
  };

  // Blocks until a concurrency slot is free and the token budget allows `estimated_tokens`.
  Slot acquire_call(double estimated_tokens);
  // Blocks until the request budget allows one more HTTP attempt.
  void acquire_attempt();
  void refund_tokens(double amount) { tokens_.refund(amount); }

  TokenBucket& requests() { return requests_; }
  TokenBucket& tokens() { return tokens_; }

 private:
  TokenBucket requests_;
  TokenBucket tokens_;
  ConcurrencyLimit concurrency_;
};

}  // namespace kf::providers
