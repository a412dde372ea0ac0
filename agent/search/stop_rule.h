#pragma once
// Stop rules: small objects that end a unit's search, shared by every strategy and by resume (they read only the
// unit's history, which the corpus rebuilds). The first rule reached names the reason its unit_done record
// carries. docs/campaigns.md, "Stop rules", lists them.
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/search/history.h"
#include "agent/search/settings.h"

namespace kf::agent::search {

class StopRule {
 public:
  virtual ~StopRule() = default;
  // The unit_done reason when this rule ends the search now.
  virtual std::optional<std::string> reached(const History& history) const = 0;
  // How many more evaluations a round may ask (a budget in evaluations); unlimited otherwise.
  virtual int evaluations_left(const History&) const { return INT_MAX; }
  // The reason a call may not be sent now, given what the unit has spent including calls of the running round
  // that have ended (budgets in tokens and dollars: exceeded only by calls already on the wire); nullopt: it may.
  virtual std::optional<std::string> refuses_call(const Spend&) const { return std::nullopt; }
};

// One file each.
std::unique_ptr<StopRule> first_correct();                     // "correct"
std::unique_ptr<StopRule> peak_fraction(double target);        // "peak_fraction_reached"
std::unique_ptr<StopRule> plateau(int evaluations);            // "plateau"
std::unique_ptr<StopRule> evaluation_budget(int evaluations);  // "budget_evaluations"
std::unique_ptr<StopRule> token_budget(int64_t tokens);        // "budget_tokens"
std::unique_ptr<StopRule> usd_budget(double usd);              // "budget_usd"
std::unique_ptr<StopRule> gpu_seconds_budget(double seconds);  // "budget_gpu_seconds"
std::unique_ptr<StopRule> rounds_limit(int rounds,
                                       std::string reason);  // "turns_exhausted" (refine), "rounds_exhausted"

// The rules a configuration sets, in the order their reasons win: correct, peak fraction, plateau, the budgets,
// the rounds.
class StopRules {
 public:
  static StopRules from(const SearchSettings& settings);
  std::optional<std::string> reached(const History& history) const;
  int evaluations_left(const History& history) const;
  std::optional<std::string> refuses_call(const Spend& spend) const;

 private:
  std::vector<std::shared_ptr<const StopRule>> rules_;
};

}  // namespace kf::agent::search
