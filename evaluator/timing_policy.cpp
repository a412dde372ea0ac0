#include "evaluator/timing_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace kf::eval {

TimingPolicy::TimingPolicy(TimingPolicyOptions options) : options_(options) {
  options_.min_rounds = std::max(1, options_.min_rounds);
  options_.max_rounds = std::max(options_.min_rounds, options_.max_rounds);
  if (options_.wall_budget_ms <= 0) options_.wall_budget_ms = 2 * options_.budget_ms;
}

namespace {
double steady_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void TimingPolicy::add(double round_ms, int calls) {
  if (first_s_ < 0) first_s_ = steady_s();
  if (seen_++ < options_.warmup_rounds || calls <= 0) return;
  samples_.push_back(round_ms / calls);
  calls_ += calls;
  measured_ += round_ms;
  stop_ = compute_stop();
}

double TimingPolicy::quantile(double q) const {
  if (samples_.empty()) return 0;
  std::vector<double> s = samples_;
  std::sort(s.begin(), s.end());
  double pos = q * static_cast<double>(s.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

double TimingPolicy::median_ms() const { return quantile(0.5); }

double TimingPolicy::noise() const {
  const size_t n = samples_.size();
  if (n < 2) return 1;
  const double med = median_ms();
  if (med <= 0) return 1;
  // Distribution-free: the median's rank spreads by sqrt(n)/2 (binomial), so the samples that many ranks either
  // side of it bound it within about one standard error (for normal samples this half-width is the usual
  // 1.2533 stdev / sqrt(n)). Unlike the standard deviation it ignores a few disturbed rounds (on the H200 one
  // 13.3 ms ReLU round in 36 took 16.9 ms, which kept a stdev-based error above 0.4% until the wall budget and
  // tripled the timing's cost) and, unlike the median absolute deviation, it stays wide for two modes of
  // nearly equal weight, where the median itself is unsettled.
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  const size_t k = static_cast<size_t>(std::ceil(0.5 * std::sqrt(static_cast<double>(n))));
  const size_t lo = (n - 1) / 2 >= k ? (n - 1) / 2 - k : 0;
  const size_t hi = std::min(n - 1, n / 2 + k);
  return (sorted[hi] - sorted[lo]) / 2 / med;
}

std::string TimingPolicy::compute_stop() const {
  const int n = rounds();
  if (n >= options_.max_rounds) return "max_rounds";
  if (n >= options_.min_rounds && noise() <= options_.max_noise) return "noise";
  if (n >= std::min(options_.min_rounds, 3) && measured_ >= options_.budget_ms) return "budget";
  if (n >= std::min(options_.min_rounds, 3) && first_s_ >= 0 &&
      (steady_s() - first_s_) * 1e3 >= options_.wall_budget_ms)
    return "wall_budget";
  return "";
}

bool TimingPolicy::done() const { return !stop_.empty(); }

TimingSummary TimingPolicy::summary() const {
  TimingSummary s;
  s.median_ms = median_ms();
  s.p10_ms = quantile(0.1);
  s.p90_ms = quantile(0.9);
  s.min_ms = quantile(0);
  s.max_ms = quantile(1);
  s.rounds = rounds();
  s.calls = calls_;
  s.measured_ms = measured_;
  s.noise = noise();
  s.stop = stop_reason();
  return s;
}

}  // namespace kf::eval
