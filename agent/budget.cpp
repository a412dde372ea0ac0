#include "agent/budget.h"

#include <cstdio>

#include "core/format.h"
#include "core/log.h"

namespace kf::agent {

BudgetPolicy::BudgetPolicy(std::string dir, std::optional<double> usd, std::optional<int64_t> tokens)
    : follower_(std::move(dir)), usd_(usd), tokens_(tokens) {}

bool BudgetPolicy::allows_model_call() {
  if (!usd_ && !tokens_) return true;
  std::lock_guard lock(mu_);
  if (reached_) return false;
  for (const auto& r : follower_.poll()) {
    spent_usd_ += r.cost_usd;
    spent_tokens_ += r.usage.total();
  }
  if (usd_ && spent_usd_ >= *usd_)
    reason_ = "USD budget reached ($" + format_fixed(spent_usd_, 4) + " of $" + format_fixed(*usd_, 4) +
              " in the run folder)";
  else if (tokens_ && spent_tokens_ >= *tokens_)
    reason_ = "token budget reached (" + std::to_string(spent_tokens_) + " of " + std::to_string(*tokens_) +
              " in the run folder)";
  if (reason_.empty()) return true;
  reached_ = true;
  log::warn(reason_ + ": no new model calls; finishing what is in flight");
  return false;
}

std::string BudgetPolicy::reason() {
  std::lock_guard lock(mu_);
  return reason_;
}

}  // namespace kf::agent
