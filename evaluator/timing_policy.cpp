#include "evaluator/timing_policy.h"

#include <algorithm>
#include <cmath>

namespace kf::eval {

TimingPolicy::TimingPolicy(TimingPolicyOptions options) : options_(options) {
  options_.min_rounds = std::max(1, options_.min_rounds);
  options_.max_rounds = std::max(options_.min_rounds, options_.max_rounds);
}

void TimingPolicy::add(double round_ms, int calls) {
  if (seen_++ < options_.warmup_rounds || calls <= 0) return;
  samples_.push_back(round_ms / calls);
  calls_ += calls;
  measured_ += round_ms;
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
  size_t n = samples_.size();
  if (n < 2) return 1;
  double mean = 0;
  for (double x : samples_) mean += x;
  mean /= static_cast<double>(n);
  double var = 0;
  for (double x : samples_) var += (x - mean) * (x - mean);
  var /= static_cast<double>(n - 1);
  double med = median_ms();
  if (med <= 0) return 1;
  return 1.2533 * std::sqrt(var / static_cast<double>(n)) / med;
}

std::string TimingPolicy::stop_reason() const {
  const int n = rounds();
  if (n >= options_.max_rounds) return "max_rounds";
  if (n >= options_.min_rounds && noise() <= options_.max_noise) return "noise";
  if (n >= std::min(options_.min_rounds, 3) && measured_ >= options_.budget_ms) return "budget";
  return "";
}

bool TimingPolicy::done() const { return !stop_reason().empty(); }

nlohmann::json TimingPolicy::summary() const {
  return {{"median_ms", median_ms()},
          {"p10_ms", quantile(0.1)},
          {"p90_ms", quantile(0.9)},
          {"min_ms", quantile(0)},
          {"max_ms", quantile(1)},
          {"rounds", rounds()},
          {"calls", calls_},
          {"measured_ms", measured_},
          {"noise", noise()},
          {"stop", stop_reason()}};
}

}  // namespace kf::eval
