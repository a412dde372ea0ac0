// loop.stop_at_peak_fraction: the search ends once a correct kernel reaches this fraction of the roofline.
#include "agent/search/stop_rule.h"

namespace kf::agent::search {
namespace {

class PeakFraction final : public StopRule {
 public:
  explicit PeakFraction(double target) : target_(target) {}
  std::optional<std::string> reached(const History& h) const override {
    for (const auto& j : h.judged())
      if (j.correct && j.peak_fraction && *j.peak_fraction >= target_) return "peak_fraction_reached";
    return std::nullopt;
  }

 private:
  double target_;
};

}  // namespace

std::unique_ptr<StopRule> peak_fraction(double target) { return std::make_unique<PeakFraction>(target); }

}  // namespace kf::agent::search
