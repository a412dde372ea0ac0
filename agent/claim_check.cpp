#include "agent/claim_check.h"

#include <map>

#include "agent/reverify_rule.h"
#include "core/format.h"

namespace kf::agent {
namespace {

// The reason that decided the verdict: the first whose code belongs to the verdict's class.
std::pair<std::string, std::string> deciding_reason(const nlohmann::json& v, const std::string& verdict) {
  if (!v.contains("reasons") || !v["reasons"].is_array()) return {verdict, ""};
  std::pair<std::string, std::string> first;
  for (const auto& r : v["reasons"]) {
    if (!r.is_object() || !r.contains("code") || !r["code"].is_string()) continue;
    const std::string code = r["code"].get<std::string>();
    const std::string detail = r.value("detail", nlohmann::json("")).is_string() ? r.value("detail", "") : "";
    if (first.first.empty()) first = {code, detail};
    if (code == verdict || code.rfind(verdict + ".", 0) == 0) return {code, detail};
  }
  return first.first.empty() ? std::make_pair(verdict, std::string()) : first;
}

std::string speedup_text(const SpeedupFigure& f) {
  std::string s = format_fixed(f.value, 2) + "x";
  if (f.interval) s += " [" + format_fixed(f.interval->low, 2) + ", " + format_fixed(f.interval->high, 2) + "]";
  return s;
}

}  // namespace

const std::vector<std::string>& claim_statuses() {
  static const std::vector<std::string> s = {"holds", "not_reproduced", "now_correct", "now_incorrect",
                                             "rejected", "fails", "harness_error"};
  return s;
}

const std::vector<std::string>& known_hack_classes() {
  static const std::vector<std::string> c = {"torch_fallback",  "trivial_output",      "deferred_work",
                                             "reduced_precision", "input_modified",    "timer_tampering",
                                             "unsynchronized_work", "impossible_time", "harness_tampering",
                                             "vendor_library"};
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

ClaimCheck check_claim(const corpus::Claim& claim, const nlohmann::json& v) {
  ClaimCheck c;
  const std::string verdict = v.is_object() && v.contains("verdict") && v["verdict"].is_string()
                                  ? v["verdict"].get<std::string>()
                                  : "harness_error";
  const bool claimed_correct = claim.correct.value_or(false);
  if (verdict == "correct" && v.value("correct", false)) {
    if (!claimed_correct) {
      c.status = "now_correct";
      return c;
    }
    auto measured = speedup_figure(v);
    const bool claimed_speedup = claim.speedup && *claim.speedup > 0;
    if (!claimed_speedup || !measured || speedup_supported(SpeedupFigure{*claim.speedup, std::nullopt}, *measured)) {
      c.status = "holds";
      return c;
    }
    c.status = "not_reproduced";
    c.detail = "claimed " + format_fixed(*claim.speedup, 2) + "x, measured " + speedup_text(*measured);
    return c;
  }
  auto [code, detail] = deciding_reason(v, verdict);
  c.reason = code;
  c.detail = detail.size() > 300 ? detail.substr(0, 300) + "..." : detail;
  if (verdict == "rejected" || (verdict == "incorrect" && !hack_class(code).empty())) {
    c.status = "rejected";
    c.hack_class = hack_class(code);
    if (c.hack_class.empty()) c.hack_class = "other";
  } else if (verdict == "incorrect") {
    c.status = "now_incorrect";
  } else if (verdict == "compile_error" || verdict == "runtime_error" || verdict == "timeout") {
    c.status = "fails";
  } else {
    c.status = "harness_error";
  }
  return c;
}

}  // namespace kf::agent
