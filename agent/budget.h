#pragma once
// The budget policy of a campaign: --budget-usd / --budget-tokens cap what the whole run folder spends,
// every shard included. Before each model call it reads the records appended since the last check to every
// corpus file of the folder (its own and other shards'), so caps hold across shards up to the calls in
// flight at that moment.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "corpus/reader.h"

namespace kf::agent {

class BudgetPolicy {
 public:
  BudgetPolicy(std::string dir, std::optional<double> usd, std::optional<int64_t> tokens);
  // True while the folder's spending is under every cap; the first refusal logs why.
  bool allows_model_call();
  bool reached() const { return reached_; }
  std::string reason();

 private:
  std::mutex mu_;
  corpus::Follower follower_;
  std::optional<double> usd_;
  std::optional<int64_t> tokens_;
  double spent_usd_ = 0;
  int64_t spent_tokens_ = 0;
  std::atomic<bool> reached_{false};
  std::string reason_;
};

}  // namespace kf::agent
