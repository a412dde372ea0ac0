#pragma once
// The budget policy of a campaign: --budget-usd / --budget-tokens cap what the whole run folder spends,
// every shard included. The folder is read once at the start (the campaign's resume pass); from then on
// this invocation's own calls are charged the moment their replies arrive, and the other shards' files are
// followed from where that pass ended (only their new records are read). The check runs when a call is
// about to be sent, after its wait for a concurrency slot: a cap is exceeded only by calls already on the
// wire at the moment it is reached.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "corpus/reader.h"

namespace kf::agent {

class BudgetPolicy {
 public:
  // `follower` has read the folder up to now and found `spent_usd` and `spent_tokens`; `own_file` is the
  // corpus file this invocation appends to (its spending comes through charge(), not through the file).
  BudgetPolicy(corpus::Follower follower, const std::string& own_file, double spent_usd, int64_t spent_tokens,
               std::optional<double> usd, std::optional<int64_t> tokens);
  // A reply (or a failed call) of this invocation arrived and cost this much.
  void charge(double usd, int64_t tokens);
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
