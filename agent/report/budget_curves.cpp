#include "agent/report/budget_curves.h"

#include <algorithm>
#include <cmath>

#include "core/format.h"

namespace kf::agent {
namespace {

// Two significant figures, up or down to the nearest: budgets read as round numbers.
double round2(double v) {
  if (v <= 0 || !std::isfinite(v)) return 0;
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
  return std::round(v / scale) * scale;
}

}  // namespace

void SearchCourse::add(const corpus::RecordSummary& r) {
  using corpus::Kind;
  if (r.kind == Kind::unit_done || r.kind == Kind::imported) return;
  total.tokens += r.tokens;
  total.cost_usd += r.cost_usd;
  if (r.kind != Kind::evaluation) return;
  total.evaluations++;
  if (!r.correct) return;
  const bool first_correct = !total.correct;
  const bool faster =
      r.speedup && std::isfinite(*r.speedup) && (!total.best_speedup || *r.speedup > *total.best_speedup);
  total.correct = true;
  if (faster) total.best_speedup = r.speedup;
  if (first_correct || faster) improvements.push_back(total);
}

std::string to_string(BudgetAxis axis) {
  switch (axis) {
    case BudgetAxis::evaluations: return "evaluations";
    case BudgetAxis::tokens: return "tokens";
    case BudgetAxis::dollars: return "dollars";
  }
  return "?";
}

double spent(const BudgetStep& s, BudgetAxis axis) {
  switch (axis) {
    case BudgetAxis::evaluations: return s.evaluations;
    case BudgetAxis::tokens: return static_cast<double>(s.tokens);
    case BudgetAxis::dollars: return s.cost_usd;
  }
  return 0;
}

AtBudget at_budget(const std::vector<SearchCourse>& searches, BudgetAxis axis, double budget) {
  AtBudget a;
  a.budget = budget;
  double log_sum = 0;
  for (const auto& s : searches) {
    if (s.total.evaluations == 0) continue;  // never a reply: not attempted (as in the report's other figures)
    a.problems++;
    // The last improvement within the budget (spend only grows along a search).
    const BudgetStep* reached = nullptr;
    for (const auto& step : s.improvements) {
      if (spent(step, axis) > budget) break;
      reached = &step;
    }
    double best = 1;
    if (reached) {
      a.correct++;
      if (reached->best_speedup && *reached->best_speedup > 1) {
        a.faster++;
        best = *reached->best_speedup;
      }
    }
    log_sum += std::log(best);
  }
  if (a.problems > 0) a.geomean_best = std::exp(log_sum / a.problems);
  return a;
}

nlohmann::json AtBudget::to_json() const {
  return {{"budget", budget},
          {"problems", problems},
          {"correct", correct},
          {"faster", faster},
          {"geomean_best_speedup", geomean_best ? nlohmann::json(*geomean_best) : nlohmann::json(nullptr)}};
}

std::vector<double> budget_levels(const std::vector<const std::vector<SearchCourse>*>& configs, BudgetAxis axis) {
  double largest = 0;
  for (const auto* searches : configs)
    for (const auto& s : *searches) largest = std::max(largest, spent(s.total, axis));
  std::vector<double> levels;
  if (!(largest > 0) || !std::isfinite(largest)) return levels;
  if (axis == BudgetAxis::evaluations) {
    for (double e = 1; e < largest; e *= 2) levels.push_back(e);
    levels.push_back(largest);
    return levels;
  }
  for (double part : {1.0 / 64, 1.0 / 16, 1.0 / 4}) {
    const double level = round2(largest * part);
    if (level > 0 && (levels.empty() || level > levels.back())) levels.push_back(level);
  }
  levels.push_back(largest);
  return levels;
}

std::string budget_label(double budget, BudgetAxis axis) {
  switch (axis) {
    case BudgetAxis::evaluations: return "<= " + format_significant(budget, 6);
    case BudgetAxis::tokens: return "<= " + std::to_string(static_cast<int64_t>(budget)) + " tokens";
    case BudgetAxis::dollars: return "<= $" + (budget >= 1 ? format_fixed(budget, 2) : format_significant(budget, 2));
  }
  return "";
}

}  // namespace kf::agent
