#pragma once
// Strategies compared at equal budget (docs/campaigns.md, "Equal budget"): the course of a configuration's
// search on each problem (what it had reached after each evaluation, token and dollar spent on that problem),
// and what every configuration had reached at the same budgets.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/summary.h"

namespace kf::agent {

// What one search (a configuration on a problem, every sample together) had spent and reached.
struct BudgetStep {
  int evaluations = 0;  // replies judged so far (a provider failure spends tokens and dollars, no evaluation)
  int64_t tokens = 0;   // input + output + reasoning so far, provider and harness failures included
  double cost_usd = 0;
  bool correct = false;                // a correct kernel so far
  std::optional<double> best_speedup;  // the best correct kernel's speedup so far (a timed one)
};

// The steps at which a search got better (its first correct kernel, each faster one), in corpus order, and
// its whole spend: a search is known at every budget from these (memory grows with improvements, not records).
struct SearchCourse {
  std::string problem;
  std::vector<BudgetStep> improvements;
  BudgetStep total;
  void add(const corpus::RecordSummary& record);
};

enum class BudgetAxis { evaluations, tokens, dollars };
std::string to_string(BudgetAxis axis);  // "evaluations" | "tokens" | "dollars"
double spent(const BudgetStep& step, BudgetAxis axis);

// What a configuration had reached over its problems when each search had spent at most `budget` on `axis`.
struct AtBudget {
  double budget = 0;
  int problems = 0;  // problems attempted: searches with at least one reply judged
  int correct = 0;   // with a correct kernel within the budget (fast_0)
  int faster = 0;    // with a correct kernel faster than the baseline (fast_1.0)
  // The geometric mean over the problems of the best speedup within the budget, a problem without a correct
  // kernel faster than the baseline counting 1 (its user keeps PyTorch); nullopt without problems.
  std::optional<double> geomean_best;
  nlohmann::json to_json() const;
};
AtBudget at_budget(const std::vector<SearchCourse>& searches, BudgetAxis axis, double budget);

// The budgets every configuration is compared at, from the largest search of any of them: on evaluations
// 1, 2, 4, ... and the largest; on tokens and dollars 1/64, 1/16, 1/4 and all of the largest search's spend,
// rounded to two significant figures. Empty when nothing was spent on that axis.
std::vector<double> budget_levels(const std::vector<const std::vector<SearchCourse>*>& configs, BudgetAxis axis);

// "<= 4", "<= 12,000 tokens", "<= $0.25": a budget as a column heading.
std::string budget_label(double budget, BudgetAxis axis);

}  // namespace kf::agent
