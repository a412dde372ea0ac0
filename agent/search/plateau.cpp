// loop.stop.plateau_evaluations N: the search ends when its last N evaluations brought no correct kernel faster
// than the best so far beyond that best's own measured timing noise ((p90 - p10) / time of its timed rounds): a
// speedup within the noise is not an improvement. Needs a correct kernel: before one, the search goes on.
#include "agent/search/stop_rule.h"

namespace kf::agent::search {
namespace {

class Plateau final : public StopRule {
 public:
  explicit Plateau(int evaluations) : n_(evaluations) {}
  std::optional<std::string> reached(const History& h) const override {
    const Judged* best = nullptr;
    int since = 0;  // evaluations after the last improvement
    for (const auto& j : h.judged()) {
      const bool better =
          j.correct && (!best || j.speedup.value_or(0) > best->speedup.value_or(0) * (1 + best->timing_noise));
      if (better) {
        best = &j;
        since = 0;
      } else if (best) {
        ++since;
      }
    }
    if (best && since >= n_) return "plateau";
    return std::nullopt;
  }

 private:
  int n_;
};

}  // namespace

std::unique_ptr<StopRule> plateau(int evaluations) { return std::make_unique<Plateau>(evaluations); }

}  // namespace kf::agent::search
