#include "agent/search/settings.h"

namespace kf::agent::search {

SearchSettings search_settings(const providers::LoopSettings& loop, int turns) {
  SearchSettings s;
  s.strategy = loop.strategy;
  s.rounds = s.strategy == "refine" ? turns : loop.rounds.value_or(turns);
  s.keep_last_attempts = loop.keep_last_attempts;
  s.seed = static_cast<uint64_t>(loop.seed);
  s.best_of_n = loop.best_of_n;
  s.beam = loop.beam;
  s.evolve = loop.evolve;
  s.stop.first_correct = loop.stop_at_first_correct;
  s.stop.peak_fraction = loop.stop_at_peak_fraction;
  s.stop.plateau_evaluations = loop.plateau_evaluations;
  s.stop.evaluations = loop.budget.evaluations;
  s.stop.tokens = loop.budget.tokens;
  s.stop.usd = loop.budget.usd;
  s.stop.gpu_seconds = loop.budget.gpu_seconds;
  return s;
}

}  // namespace kf::agent::search
