#include <algorithm>

#include "agent/search/stop_rule.h"

namespace kf::agent::search {

StopRules StopRules::from(const SearchSettings& s) {
  StopRules r;
  if (s.stop.first_correct) r.rules_.push_back(first_correct());
  if (s.stop.peak_fraction) r.rules_.push_back(peak_fraction(*s.stop.peak_fraction));
  if (s.stop.plateau_evaluations) r.rules_.push_back(plateau(*s.stop.plateau_evaluations));
  if (s.stop.evaluations) r.rules_.push_back(evaluation_budget(*s.stop.evaluations));
  if (s.stop.tokens) r.rules_.push_back(token_budget(*s.stop.tokens));
  if (s.stop.usd) r.rules_.push_back(usd_budget(*s.stop.usd));
  if (s.stop.gpu_seconds) r.rules_.push_back(gpu_seconds_budget(*s.stop.gpu_seconds));
  r.rules_.push_back(rounds_limit(s.rounds, s.strategy == "refine" ? "turns_exhausted" : "rounds_exhausted"));
  return r;
}

std::optional<std::string> StopRules::reached(const History& history) const {
  for (const auto& rule : rules_)
    if (auto reason = rule->reached(history)) return reason;
  return std::nullopt;
}

int StopRules::evaluations_left(const History& history) const {
  int left = INT_MAX;
  for (const auto& rule : rules_) left = std::min(left, rule->evaluations_left(history));
  return left;
}

std::optional<std::string> StopRules::refuses_call(const Spend& spend) const {
  for (const auto& rule : rules_)
    if (auto reason = rule->refuses_call(spend)) return reason;
  return std::nullopt;
}

}  // namespace kf::agent::search
