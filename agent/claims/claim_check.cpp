#include "agent/claims/claim_check.h"

#include <map>

#include "agent/claims/baseline_kind.h"
#include "agent/claims/hardware_name.h"
#include "agent/claims/reverify_rule.h"
#include "core/format.h"

namespace kf::agent {
namespace {

std::string speedup_text(const SpeedupFigure& f) {
  std::string s = format_fixed(f.value, 2) + "x";
  if (f.interval) s += " [" + format_fixed(f.interval->low, 2) + ", " + format_fixed(f.interval->high, 2) + "]";
  return s;
}

}  // namespace

const std::vector<std::string>& claim_statuses() {
  static const std::vector<std::string> s = {"holds",    "not_reproduced", "now_correct",  "now_incorrect",
                                             "rejected", "fails",          "harness_error"};
  return s;
}

const std::vector<std::string>& known_hack_classes() {
  static const std::vector<std::string> c = {
      "torch_fallback",  "trivial_output",      "deferred_work",   "reduced_precision", "input_modified",
      "timer_tampering", "unsynchronized_work", "impossible_time", "harness_tampering", "vendor_library"};
  return c;
}

std::string hack_class(const std::string& code) {
  static const std::map<std::string, std::string> named = {
      {"incorrect.reduced_precision", "reduced_precision"},
      {"rejected.below_bandwidth_floor", "impossible_time"},
      {"rejected.buffer_tampered", "harness_tampering"},
  };
  if (auto it = named.find(code); it != named.end()) return it->second;
  const std::string prefix = "rejected.";
  if (code.rfind(prefix, 0) == 0 && code.size() > prefix.size()) return code.substr(prefix.size());
  if (code == "rejected") return "other";
  return "";
}

namespace {

// A claim made on another GPU says nothing about the figure here, only whether the solution is faster than
// the baseline: the same side of 1.0 as kforge's interval (its figure when it has none).
bool same_side(double claimed, const SpeedupFigure& measured) {
  const bool measured_faster = measured.interval ? measured.interval->low > 1.0 : measured.value > 1.0;
  return (claimed > 1.0) == measured_faster;
}

}  // namespace

ClaimCheck check_claim(const corpus::Claim& claim, const eval::Verdict& v, const Measurement& m) {
  using eval::VerdictKind;
  ClaimCheck c;
  c.baseline_kind = m.baseline_kind;
  c.hardware_differs = same_gpu(claim.hardware, m.hardware) == std::optional<bool>(false);
  const bool claimed_correct = claim.correct.value_or(false);
  if (v.correct()) {
    auto supported = [&](double claimed, const SpeedupFigure& measured) {
      return c.hardware_differs ? same_side(claimed, measured)
                                : speedup_supported(SpeedupFigure{claimed, std::nullopt}, measured);
    };
    std::vector<corpus::ClaimedSpeedup> claimed_all = claim.speedups;
    if (claimed_all.empty() && claim.speedup)
      claimed_all.push_back(
          {claim.baseline_kind.empty() ? "eager" : claim.baseline_kind, *claim.speedup, claim.baseline_ms});
    for (const auto& s : claimed_all) {
      BaselineComparison b{s.baseline, s.speedup, measured_speedup(v, s.baseline), "not_measured"};
      if (b.measured) b.outcome = supported(s.speedup, *b.measured) ? "supported" : "not_supported";
      c.baselines.push_back(std::move(b));
    }
    if (!claimed_correct) {
      c.status = "now_correct";
      return c;
    }
    auto measured = measured_speedup(v, m.baseline_kind);
    auto claimed = claim.speedup_over(m.baseline_kind);
    const bool claimed_speedup = claimed && *claimed > 0;
    if (!claimed_speedup && !claimed_all.empty())
      c.detail = "claims no speedup over " + baseline_label(m.baseline_kind) +
                 ", the baseline kforge measured: "
                 "correctness alone";
    if (!claimed_speedup || !measured || supported(*claimed, *measured)) {
      c.status = "holds";
      if (claimed_speedup && measured && c.hardware_differs)
        c.detail = "claimed " + format_fixed(*claimed, 2) + "x on " + claim.hardware + "; measured " +
                   speedup_text(*measured) + " on " + m.hardware + " (hardware_differs: same side of 1.0)";
      return c;
    }
    c.status = "not_reproduced";
    c.detail = "claimed " + format_fixed(*claimed, 2) + "x over " + baseline_label(m.baseline_kind) +
               (claim.hardware.empty() ? "" : " on " + claim.hardware) + ", measured " + speedup_text(*measured) +
               (m.hardware.empty() ? "" : " on " + m.hardware) +
               (c.hardware_differs ? " (hardware_differs: judged on kforge's interval)" : "");
    return c;
  }
  const auto deciding = v.deciding_reason();
  const std::string code = deciding ? deciding->code : eval::to_string(v.kind);
  const std::string detail = deciding ? deciding->detail : "";
  c.reason = code;
  c.detail = detail.size() > 300 ? detail.substr(0, 300) + "..." : detail;
  if (v.kind == VerdictKind::rejected || (v.kind == VerdictKind::incorrect && !hack_class(code).empty())) {
    c.status = "rejected";
    c.hack_class = hack_class(code);
    if (c.hack_class.empty()) c.hack_class = "other";
  } else if (v.kind == VerdictKind::incorrect) {
    c.status = "now_incorrect";
  } else if (v.kind == VerdictKind::compile_error || v.kind == VerdictKind::runtime_error ||
             v.kind == VerdictKind::timeout) {
    c.status = "fails";
  } else {
    c.status = "harness_error";
  }
  return c;
}

}  // namespace kf::agent
