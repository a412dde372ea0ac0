// beam: keep the `width` best correct kernels (by speedup, ties by fraction of peak); each round asks, for each
// of them, `children` faster kernels with its verdict and yardsticks in the prompt. A source holds one place
// (byte-identical copies, which a model that repeats itself gives, count once). With `diverse` (the default) a
// structure (agent/search/structure.h) holds one place, its fastest kernel, and a kernel of a structure new to
// the search is followed up once before the ranking applies: a different design's first version is often slower
// than the tuned old one, and a beam ranked by speed alone would drop it at once. While fewer than `width` are
// kept, the free places go to repairs of the last round's failed candidates, then to fresh first turns.
#include <algorithm>
#include <set>
#include <string>

#include "agent/search/strategy.h"

namespace kf::agent::search {
namespace {

class Beam final : public Strategy {
 public:
  explicit Beam(BeamSettings s) : s_(s) {}
  std::string name() const override { return "beam"; }
  std::vector<Ask> next_round(const History& history, int round, int max_asks) const override {
    const auto kept = places(history, round);
    std::vector<Ask> asks;
    auto room = [&] { return static_cast<int>(asks.size()) < max_asks; };
    for (const Judged* j : kept)
      for (int c = 0; c < std::max(1, s_.children) && room(); ++c)
        asks.push_back({Ask::Prompt::improve, {j->id}, {}, std::nullopt});
    int free = std::max(1, s_.width) - static_cast<int>(kept.size());
    for (const auto& j : history.judged())
      if (free > 0 && room() && j.round == round - 1 && !j.correct) {
        asks.push_back({Ask::Prompt::improve, {j.id}, {}, std::nullopt});
        --free;
      }
    for (; free > 0 && room(); --free) asks.push_back(Ask{});
    return asks;
  }

 private:
  std::vector<const Judged*> places(const History& history, int round) const {
    const size_t width = static_cast<size_t>(std::max(1, s_.width));
    std::vector<const Judged*> kept;
    std::set<std::string> sources, structures;
    auto take = [&](const Judged* j) {
      if (kept.size() >= width) return;
      if (s_.diverse && structures.count(j->structure)) return;
      if (!j->source_sha256.empty() && !sources.insert(j->source_sha256).second) return;
      structures.insert(j->structure);
      kept.push_back(j);
    };
    if (s_.diverse)
      for (const auto& j : history.judged())
        if (j.round == round - 1 && history.first_of_structure(j)) take(&j);
    for (const Judged* j : s_.diverse ? history.best_per_structure() : history.ranked_correct()) take(j);
    return kept;
  }

  BeamSettings s_;
};

}  // namespace

std::unique_ptr<Strategy> make_beam(const SearchSettings& s) { return std::make_unique<Beam>(s.beam); }

}  // namespace kf::agent::search
