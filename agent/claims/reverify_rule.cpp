#include "agent/claims/reverify_rule.h"

#include <algorithm>
#include <cmath>

namespace kf::agent {
std::optional<SpeedupInterval> speedup_interval(const eval::Verdict& v) {
  const eval::TimingChecks t = v.timing_checks();
  const auto& c = t.candidate;
  const auto& b = t.primary_baseline(v.baseline);
  if (!c || !b || c->p10_ms <= 0 || c->p90_ms <= 0 || b->p10_ms <= 0 || b->p90_ms <= 0) return std::nullopt;
  const SpeedupInterval i{b->p10_ms / c->p90_ms, b->p90_ms / c->p10_ms};
  if (!std::isfinite(i.low) || !std::isfinite(i.high)) return std::nullopt;
  return i;
}

namespace {

// Which side of 1.0 a range lies on entirely: +1 above, -1 below, 0 neither.
int side_of_one(const SpeedupInterval& r) { return r.low > 1.0 ? 1 : r.high < 1.0 ? -1 : 0; }

}  // namespace

bool speedup_supported(const SpeedupFigure& claimed, const SpeedupFigure& measured) {
  const SpeedupInterval c = claimed.interval.value_or(SpeedupInterval{claimed.value, claimed.value});
  const SpeedupInterval m = measured.interval.value_or(SpeedupInterval{measured.value, measured.value});
  if (side_of_one(c) != 0 && side_of_one(c) == side_of_one(m)) return true;
  if (measured.interval) return c.low <= m.high && m.low <= c.high;
  return std::fabs(claimed.value - measured.value) <= 0.1 * std::max(claimed.value, measured.value);
}

std::optional<SpeedupFigure> speedup_figure(const eval::Verdict& v) {
  if (!v.speedup || !std::isfinite(*v.speedup)) return std::nullopt;
  return SpeedupFigure{*v.speedup, speedup_interval(v)};
}

bool partial_replacement(const eval::Verdict& v) {
  return std::find(v.flags.begin(), v.flags.end(), "torch_compute_in_forward") != v.flags.end();
}

std::string reverify_status(const eval::Verdict& claimed, const eval::Verdict& now) {
  if (!now.correct()) return "now_incorrect";
  auto c = speedup_figure(claimed), n = speedup_figure(now);
  if (!c || !n) return "holds";  // correctness re-verified; no timing to compare
  return speedup_supported(*c, *n) ? "holds" : "not_reproduced";
}

const char* to_string(SpeedupCheck c) {
  switch (c) {
    case SpeedupCheck::not_faster: return "not_faster";
    case SpeedupCheck::inputs_repeated: return "inputs_repeated";
    case SpeedupCheck::no_spread: return "no_spread";
    case SpeedupCheck::within_spread: return "within_spread";
    case SpeedupCheck::not_held: return "not_held";
    case SpeedupCheck::partial: return "partial_replacement";
    case SpeedupCheck::in_process: return "in_process_attribution";
    case SpeedupCheck::verified: return "verified";
  }
  return "not_faster";
}

Result<VerifiedSpeedupRule> VerifiedSpeedupRule::for_folder(const std::string& dir) {
  auto results = ReverifyResults::load(dir);
  if (!results) return results.error();
  return VerifiedSpeedupRule(std::move(*results));
}

SpeedupJudgement VerifiedSpeedupRule::judge_verdict(const eval::Verdict& verdict,
                                                    const std::optional<std::string>& status) {
  SpeedupJudgement j;
  j.interval = speedup_interval(verdict);
  j.reverify_status = status;
  const bool faster = verdict.speedup && *verdict.speedup > 1.0;
  if (!verdict.correct() || !faster)
    j.check = SpeedupCheck::not_faster;
  else if (verdict.timing_checks().inputs_repeated)
    j.check = SpeedupCheck::inputs_repeated;
  else if (!j.interval)
    j.check = SpeedupCheck::no_spread;
  else if (!(j.interval->low > 1.0))
    j.check = SpeedupCheck::within_spread;
  else if (status && *status != "holds")
    j.check = SpeedupCheck::not_held;
  // A KernelBench solution whose kernels do part of the work (PyTorch the rest), or whose kernels' share of the
  // work only its own process reported.
  else if (partial_replacement(verdict))
    j.check = SpeedupCheck::partial;
  else if (verdict.attribution() == "in_process")
    j.check = SpeedupCheck::in_process;
  else
    j.check = SpeedupCheck::verified;
  return j;
}

SpeedupJudgement VerifiedSpeedupRule::judge(const corpus::Record& record) const {
  return judge_verdict(record.verdict ? *record.verdict : eval::Verdict::none(),
                       reverify_ ? reverify_->status_of(record) : std::nullopt);
}

}  // namespace kf::agent
