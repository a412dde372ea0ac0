// refine: one conversation per sample, one ask per round answering the previous turn (kforge's first loop).
#include "agent/search/strategy.h"

namespace kf::agent::search {
namespace {

class Refine final : public Strategy {
 public:
  std::string name() const override { return "refine"; }
  bool records_lineage() const override { return false; }
  std::vector<Ask> next_round(const History& history, int, int max_asks) const override {
    if (max_asks < 1) return {};
    Ask ask;
    ask.prompt = history.judged().empty() ? Ask::Prompt::first_turn : Ask::Prompt::conversation;
    if (!history.judged().empty()) ask.parents = {history.judged().back().id};
    return {ask};
  }
};

}  // namespace

std::unique_ptr<Strategy> make_refine(const SearchSettings&) { return std::make_unique<Refine>(); }

}  // namespace kf::agent::search
