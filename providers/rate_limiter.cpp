#include "providers/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace kf::providers {

MonotonicClock steady_clock_seconds() {
  return [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
}

TokenBucket::TokenBucket(double rate_per_s, double capacity, MonotonicClock clock)
    : rate_per_s_(rate_per_s),
      capacity_(std::max(capacity, 1.0)),
      clock_(std::move(clock)),
      level_(capacity_),
      last_(clock_()) {}

void TokenBucket::refill_locked() {
  const double now = clock_();
  if (now > last_) level_ = std::min(capacity_, level_ + (now - last_) * rate_per_s_);
  last_ = std::max(last_, now);
}

double TokenBucket::reserve(double amount) {
  if (rate_per_s_ <= 0) return 0;
  std::lock_guard lock(mutex_);
  refill_locked();
  level_ -= std::clamp(amount, 0.0, capacity_);
  return level_ >= 0 ? 0.0 : -level_ / rate_per_s_;
}

void TokenBucket::refund(double amount) {
  if (rate_per_s_ <= 0 || amount <= 0) return;
  std::lock_guard lock(mutex_);
  refill_locked();
  level_ = std::min(capacity_, level_ + amount);
}

double TokenBucket::available() {
  std::lock_guard lock(mutex_);
  refill_locked();
  return level_;
}

ConcurrencyLimit::ConcurrencyLimit(int max_in_flight) : max_(max_in_flight) {}

void ConcurrencyLimit::acquire() {
  std::unique_lock lock(mutex_);
  if (max_ > 0) cv_.wait(lock, [&] { return in_flight_ < max_; });
  ++in_flight_;
}

void ConcurrencyLimit::release() {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  cv_.notify_one();
}

int ConcurrencyLimit::in_flight() {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

namespace {
constexpr double kBurstSeconds = 10;

void sleep_for_seconds(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}
}  // namespace

RateLimiter::RateLimiter(const RateLimits& limits, MonotonicClock clock)
    : requests_(limits.requests_per_minute / 60.0, limits.requests_per_minute / 60.0 * kBurstSeconds, clock),
      tokens_(limits.tokens_per_minute / 60.0, limits.tokens_per_minute / 60.0 * kBurstSeconds, clock),
      concurrency_(limits.max_concurrent) {}

RateLimiter::Slot RateLimiter::acquire_call(double estimated_tokens) {
  concurrency_.acquire();
  Slot slot(&concurrency_);
  sleep_for_seconds(tokens_.reserve(estimated_tokens));
  return slot;
}

void RateLimiter::acquire_attempt() { sleep_for_seconds(requests_.reserve(1)); }

}  // namespace kf::providers
