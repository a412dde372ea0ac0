// beam: keep the `width` best distinct correct kernels (by speedup, ties by fraction of peak; a kernel whose
// source is byte-identical to a better one's holds no place of its own, so the places keep alternatives alive);
// each round asks, for each of them, `children` faster kernels with its verdict and yardsticks in the prompt.
// While fewer than `width` are kept, the free places go to repairs of the last round's failed candidates, then
// to fresh first turns.
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
    const int width = std::max(1, s_.width);
    std::vector<Ask> asks;
    auto room = [&] { return static_cast<int>(asks.size()) < max_asks; };
    std::vector<const Judged*> kept;
    std::set<std::string> sources;
    for (const Judged* j : history.ranked_correct())
      if (static_cast<int>(kept.size()) < width &&
          (j->source_sha256.empty() || sources.insert(j->source_sha256).second))
        kept.push_back(j);
    for (const Judged* j : kept)
      for (int c = 0; c < std::max(1, s_.children) && room(); ++c)
        asks.push_back({Ask::Prompt::improve, {j->id}, {}, std::nullopt});
    int free = width - static_cast<int>(kept.size());
    for (const auto& j : history.judged())
      if (free > 0 && room() && j.round == round - 1 && !j.correct) {
        asks.push_back({Ask::Prompt::improve, {j.id}, {}, std::nullopt});
        --free;
      }
    for (; free > 0 && room(); --free) asks.push_back(Ask{});
    return asks;
  }

 private:
  BeamSettings s_;
};

}  // namespace

std::unique_ptr<Strategy> make_beam(const SearchSettings& s) { return std::make_unique<Beam>(s.beam); }

}  // namespace kf::agent::search
