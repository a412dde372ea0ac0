#include "agent/search/strategy.h"

namespace kf::agent::search {

Result<std::unique_ptr<Strategy>> make_strategy(const SearchSettings& s) {
  if (s.strategy == "refine") return make_refine(s);
  if (s.strategy == "best_of_n") return make_best_of_n(s);
  if (s.strategy == "beam") return make_beam(s);
  if (s.strategy == "evolve") return make_evolve(s);
  return make_error("search.strategy", "unknown loop.strategy '" + s.strategy +
                                           "' (known: refine, best_of_n, beam, evolve; docs/campaigns.md)");
}

}  // namespace kf::agent::search
