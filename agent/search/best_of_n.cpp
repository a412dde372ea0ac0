// best_of_n: n independent first turns in round 1; every later round refines the best kernel so far (the latest
// candidate while none is correct), one ask per round.
#include <algorithm>

#include "agent/search/strategy.h"

namespace kf::agent::search {
namespace {

class BestOfN final : public Strategy {
 public:
  explicit BestOfN(BestOfNSettings s) : s_(s) {}
  std::string name() const override { return "best_of_n"; }
  std::vector<Ask> next_round(const History& history, int round, int max_asks) const override {
    if (max_asks < 1) return {};
    if (round == 1 || history.judged().empty())
      return std::vector<Ask>(static_cast<size_t>(std::min(std::max(1, s_.n), max_asks)), Ask{});
    const auto ranked = history.ranked_correct();
    const corpus::RecordId parent = ranked.empty() ? history.judged().back().id : ranked.front()->id;
    return {Ask{Ask::Prompt::improve, {parent}, {}, std::nullopt}};
  }

 private:
  BestOfNSettings s_;
};

}  // namespace

std::unique_ptr<Strategy> make_best_of_n(const SearchSettings& s) { return std::make_unique<BestOfN>(s.best_of_n); }

}  // namespace kf::agent::search
