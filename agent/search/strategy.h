#pragma once
// A search strategy: given what a unit has judged, what to ask the model in the next round. The loop
// (agent/campaign/loop.h) runs a round's asks in parallel, judges them and records them with their lineage;
// the scheduler, budgets, rate limits and the evaluator pool are shared by every strategy. A new strategy is one
// file here and one line in make_strategy. docs/campaigns.md describes each one.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/search/history.h"
#include "agent/search/settings.h"
#include "core/result.h"

namespace kf::agent::search {

// One model call of a round.
struct Ask {
  enum class Prompt {
    first_turn,    // the problem alone
    conversation,  // the unit's whole conversation so far (refine)
    improve,       // the first parent's answer and its feedback, the inspirations with their figures
  };
  Prompt prompt = Prompt::first_turn;
  std::vector<corpus::RecordId> parents;
  std::vector<corpus::RecordId> inspirations;
  std::optional<int> island;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // The asks of round `round` (1-based), planned only from `history` (what rounds before it judged), so that
  // a resumed search plans the same round again; at most `max_asks` of them (a budget's remainder). Empty:
  // the strategy has nothing more to ask.
  virtual std::vector<Ask> next_round(const History& history, int round, int max_asks) const = 0;
  // Whether its records carry a lineage (refine's are a plain conversation, as before lineage existed).
  virtual bool records_lineage() const { return true; }
};

// The strategy `settings.strategy` names; an error names the known ones.
Result<std::unique_ptr<Strategy>> make_strategy(const SearchSettings& settings);

// One file each.
std::unique_ptr<Strategy> make_refine(const SearchSettings& settings);
std::unique_ptr<Strategy> make_best_of_n(const SearchSettings& settings);
std::unique_ptr<Strategy> make_beam(const SearchSettings& settings);
std::unique_ptr<Strategy> make_evolve(const SearchSettings& settings);

}  // namespace kf::agent::search
