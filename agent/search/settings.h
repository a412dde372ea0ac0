#pragma once
// What a configuration asks of the search over one (problem, sample): the strategy with its parameters and
// the stop rules with their limits (loop.* in docs/configuration.md, the strategies in docs/campaigns.md).
#include <cstdint>
#include <optional>
#include <string>

#include "providers/model_config.h"

namespace kf::agent::search {

using BestOfNSettings = providers::LoopSettings::BestOfN;
using BeamSettings = providers::LoopSettings::Beam;
using EvolveSettings = providers::LoopSettings::Evolve;

struct StopSettings {
  bool first_correct = true;               // loop.stop_at_first_correct
  std::optional<double> peak_fraction;     // loop.stop_at_peak_fraction
  std::optional<int> plateau_evaluations;  // loop.stop.plateau_evaluations
  std::optional<int> evaluations;          // loop.budget.evaluations
  std::optional<int64_t> tokens;           // loop.budget.tokens
  std::optional<double> usd;               // loop.budget.usd
  std::optional<double> gpu_seconds;       // loop.budget.gpu_seconds
};

struct SearchSettings {
  std::string strategy = "refine";  // refine | best_of_n | beam | evolve
  int rounds = 5;                   // refine: its turns
  int keep_last_attempts = 0;       // refine: the conversation's last k attempts (0: all)
  uint64_t seed = 0;                // evolve's parent choices
  BestOfNSettings best_of_n;
  BeamSettings beam;
  EvolveSettings evolve;
  StopSettings stop;
};

// A configuration's loop section as a search; `turns` (--turns, or loop.turns) are refine's rounds and the
// others' when loop.rounds is unset.
SearchSettings search_settings(const providers::LoopSettings& loop, int turns);

}  // namespace kf::agent::search
