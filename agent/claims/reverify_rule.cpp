#include "agent/claims/reverify_rule.h"

#include <algorithm>
#include <cmath>

namespace kf::agent {
namespace {

std::optional<double> timing_figure(const nlohmann::json& checks, const char* who, const char* figure) {
  if (!checks.contains("timing") || !checks["timing"].is_object()) return std::nullopt;
  const auto& t = checks["timing"];
  if (!t.contains(who) || !t[who].is_object()) return std::nullopt;
  const auto& x = t[who];
  if (!x.contains(figure) || !x[figure].is_number()) return std::nullopt;
  double v = x[figure].get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::optional<SpeedupInterval> speedup_interval(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("checks") || !v["checks"].is_object()) return std::nullopt;
  const auto& c = v["checks"];
  // "candidate": the trusted rounds' timing (issue 11); "candidate_events": corpora written before it.
  const bool trusted = c.contains("timing") && c["timing"].is_object() && c["timing"].contains("candidate");
  const char* key = trusted ? "candidate" : "candidate_events";
  auto c10 = timing_figure(c, key, "p10_ms"), c90 = timing_figure(c, key, "p90_ms");
  // The primary baseline's timing: eager's is checks.timing.baseline, torch.compile's baseline_compile.
  const bool compile = v.contains("baseline") && v["baseline"].is_string() && v["baseline"] == "compile";
  const char* base = compile ? "baseline_compile" : "baseline";
  auto b10 = timing_figure(c, base, "p10_ms"), b90 = timing_figure(c, base, "p90_ms");
  if (!c10 || !c90 || !b10 || !b90 || *c10 <= 0 || *c90 <= 0 || *b10 <= 0 || *b90 <= 0) return std::nullopt;
  const SpeedupInterval i{*b10 / *c90, *b90 / *c10};
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

std::optional<SpeedupFigure> speedup_figure(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("speedup") || !v["speedup"].is_number()) return std::nullopt;
  const double s = v["speedup"].get<double>();
  if (!std::isfinite(s)) return std::nullopt;
  return SpeedupFigure{s, speedup_interval(v)};
}

std::string reverify_status(const nlohmann::json& claimed, const nlohmann::json& now) {
  if (!now.value("correct", false)) return "now_incorrect";
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
    case SpeedupCheck::in_process: return "in_process_attribution";
    case SpeedupCheck::verified: return "verified";
  }
  return "not_faster";
}

// A KernelBench solution whose kernels' share of the work only its own process reported (checks.attribution).
static bool in_process_attribution(const nlohmann::json& verdict) {
  if (!verdict.is_object()) return false;
  auto checks = verdict.find("checks");
  if (checks == verdict.end() || !checks->is_object()) return false;
  auto a = checks->find("attribution");
  return a != checks->end() && a->is_string() && a->get<std::string>() == "in_process";
}

Result<VerifiedSpeedupRule> VerifiedSpeedupRule::for_folder(const std::string& dir) {
  auto results = ReverifyResults::load(dir);
  if (!results) return results.error();
  return VerifiedSpeedupRule(std::move(*results));
}

namespace {
// checks.timing.inputs_repeated, read by type: a verdict in a corpus may be an imported or an old one.
bool inputs_repeated(const nlohmann::json& verdict) {
  if (!verdict.is_object()) return false;
  auto c = verdict.find("checks");
  if (c == verdict.end() || !c->is_object()) return false;
  auto t = c->find("timing");
  if (t == c->end() || !t->is_object()) return false;
  auto r = t->find("inputs_repeated");
  return r != t->end() && r->is_boolean() && r->get<bool>();
}
}  // namespace

SpeedupJudgement VerifiedSpeedupRule::judge_verdict(const nlohmann::json& verdict,
                                                    const std::optional<std::string>& status) {
  SpeedupJudgement j;
  j.interval = speedup_interval(verdict);
  j.reverify_status = status;
  const bool correct = verdict.is_object() && verdict.value("correct", false);
  const auto sp = verdict.is_object() && verdict.contains("speedup") && verdict["speedup"].is_number()
                      ? std::optional<double>(verdict["speedup"].get<double>())
                      : std::nullopt;
  const bool faster = sp && *sp > 1.0;
  if (!correct || !faster) j.check = SpeedupCheck::not_faster;
  else if (inputs_repeated(verdict)) j.check = SpeedupCheck::inputs_repeated;
  else if (!j.interval) j.check = SpeedupCheck::no_spread;
  else if (!(j.interval->low > 1.0)) j.check = SpeedupCheck::within_spread;
  else if (status && *status != "holds") j.check = SpeedupCheck::not_held;
  else if (in_process_attribution(verdict)) j.check = SpeedupCheck::in_process;
  else j.check = SpeedupCheck::verified;
  return j;
}

SpeedupJudgement VerifiedSpeedupRule::judge(const corpus::Record& record) const {
  return judge_verdict(record.verdict, reverify_ ? reverify_->status_of(record) : std::nullopt);
}

}  // namespace kf::agent
