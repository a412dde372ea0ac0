#include "agent/campaign/budget.h"

#include "core/format.h"
#include "core/log.h"

namespace kf::agent {

BudgetPolicy::BudgetPolicy(corpus::Follower follower, const std::string& own_file, double spent_usd,
                           int64_t spent_tokens, std::optional<double> usd, std::optional<int64_t> tokens)
    : follower_(std::move(follower)), usd_(usd), tokens_(tokens), spent_usd_(spent_usd), spent_tokens_(spent_tokens) {
  follower_.stop_following(own_file);
}

void BudgetPolicy::charge(double usd, int64_t tokens) {
  std::lock_guard lock(mu_);
  spent_usd_ += usd;
  spent_tokens_ += tokens;
}

bool BudgetPolicy::allows_model_call() {
  if (!usd_ && !tokens_) return true;
  std::lock_guard lock(mu_);
  if (reached_) return false;
  (void)follower_.poll_summaries([this](const corpus::RecordSummary& r, std::string_view) {  // other shards' growth
    spent_usd_ += r.cost_usd;
    spent_tokens_ += r.tokens;
  });
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
