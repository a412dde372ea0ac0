// loop.stop_at_first_correct: the search ends with its first correct kernel.
#include <algorithm>

#include "agent/search/stop_rule.h"

namespace kf::agent::search {
namespace {

class FirstCorrect final : public StopRule {
 public:
  std::optional<std::string> reached(const History& h) const override {
    const auto& judged = h.judged();
    if (std::any_of(judged.begin(), judged.end(), [](const Judged& j) { return j.correct; })) return "correct";
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<StopRule> first_correct() { return std::make_unique<FirstCorrect>(); }

}  // namespace kf::agent::search
