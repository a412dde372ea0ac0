#include "agent/prompt/feedback.h"

#include <cstdio>
#include <sstream>

#include "core/format.h"
#include "evaluator/verdict.h"

namespace kf::agent {
namespace {

std::string reasons_text(const nlohmann::json& verdict) {
  std::string out;
  if (verdict.contains("reasons") && verdict["reasons"].is_array())
    for (const auto& r : verdict["reasons"]) {
      std::string line = r.value("code", "");
      std::string detail = r.value("detail", "");
      if (!detail.empty()) line += line.empty() ? detail : ": " + detail;
      if (!line.empty()) out += (out.empty() ? "" : "\n") + line;
    }
  return out;
}

std::string fmt_optional(const std::optional<double>& v, int decimals) {
  return v ? format_fixed(*v, decimals) : "unknown";
}

std::string percent(double fraction) { return format_significant(fraction * 100, 3) + "%"; }

// How the feedback names a verdict's baseline (claims name theirs with agent/claims/baseline_kind.h).
const char* baseline_in_prose(const std::string& name) {
  if (name == "eager") return "eager PyTorch";
  if (name == "compile") return "torch.compile";
  return "the baseline";
}

}  // namespace

TemplateVars correct_feedback_vars(const nlohmann::json& verdict) {
  const eval::Verdict y = eval::Verdict::yardsticks_from_json(verdict);
  TemplateVars vars{{"time_ms", fmt_optional(y.time_ms, 4)},
                    {"ref_time_ms", fmt_optional(y.ref_time_ms, 4)},
                    {"speedup", fmt_optional(y.speedup, 3)},
                    {"baseline", baseline_in_prose(y.baseline)}};
  // One sentence per yardstick; each says what is known and nothing that is not.
  std::string speedups;
  for (const char* name : {"eager", "compile"}) {
    auto it = y.baselines.find(name);
    const bool timed = it != y.baselines.end() && it->second.time_ms;
    vars[std::string(name) + "_time_ms"] = timed ? format_fixed(*it->second.time_ms, 4) : "unknown";
    vars[std::string(name) + "_speedup"] = timed ? fmt_optional(it->second.speedup, 3) : "unknown";
    if (!timed || !it->second.speedup) continue;
    speedups += std::string(speedups.empty() ? "" : "; ") + format_fixed(*it->second.speedup, 3) + "x over " +
                baseline_in_prose(name) + " (" + format_fixed(*it->second.time_ms, 4) + " ms)";
  }
  if (speedups.empty() && y.speedup)
    speedups = format_fixed(*y.speedup, 3) + "x over " + baseline_in_prose(y.baseline);
  vars["speedups"] = speedups.empty() ? "unknown (no baseline was timed)" : speedups;
  std::string roofline;
  if (y.peak) {
    roofline = "Your kernel reaches " + eval::percent_of_bound(*y.peak);
    for (const char* name : {"eager", "compile"}) {
      auto it = y.baselines.find(name);
      if (it != y.baselines.end() && it->second.peak)
        roofline += std::string("; ") + baseline_in_prose(name) + " reaches " + percent(it->second.peak->fraction);
    }
    roofline += " (the bound: the minimum bytes moved at the device's memory bandwidth, or the counted FLOPs at "
                "its compute peak, whichever takes longer).";
  }
  vars["roofline"] = roofline.empty() ? "Its fraction of the hardware's peak is unknown." : roofline;
  vars["peak_fraction"] = y.peak ? percent(y.peak->fraction) : "unknown";
  vars["bound_by"] = y.peak ? y.peak->bound_by : "unknown";
  return vars;
}

nlohmann::json no_code_verdict(const std::string& failure, const std::string& message) {
  return {{"verdict", "no_code"},
          {"correct", false},
          {"reasons", nlohmann::json::array({{{"code", "no_code." + failure}, {"detail", message}}})},
          {"checks", nlohmann::json::object()},
          {"time_ms", nullptr},
          {"ref_time_ms", nullptr},
          {"speedup", nullptr},
          {"flags", nlohmann::json::array()}};
}

std::string first_lines(const std::string& text, size_t max_lines) {
  std::istringstream in(text);
  std::string line, out;
  size_t n = 0, total = 0;
  while (std::getline(in, line)) {
    ++total;
    if (n < max_lines) {
      out += line + "\n";
      ++n;
    }
  }
  if (total > n) out += "... (" + std::to_string(total - n) + " more lines)\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

Result<std::string> render_feedback(const PromptTemplates& t, const nlohmann::json& verdict,
                                    const std::string& code_label) {
  const std::string v = verdict.value("verdict", "");
  const std::string reasons = reasons_text(verdict);
  if (v == "correct") return t.render("correct", correct_feedback_vars(verdict));
  if (v == "compile_error") {
    // A specific reason (compile_error.missing_package, .timeout, ...) says more than the compiler's
    // output, which may not mention it: it goes first.
    std::string specific;
    if (verdict.contains("reasons") && verdict["reasons"].is_array())
      for (const auto& r : verdict["reasons"])
        if (r.value("code", "") != "compile_error") {
          specific = reasons;
          break;
        }
    std::string out = verdict.value("compiler_output", "");
    if (out.empty()) out = reasons;
    else if (!specific.empty()) out = specific + "\n" + out;
    return t.render("compile_error", {{"compiler_errors", first_lines(out, 40)}});
  }
  if (v == "incorrect") {
    std::string failed = "output mismatch";
    if (verdict.contains("reasons") && verdict["reasons"].is_array() && !verdict["reasons"].empty())
      failed = verdict["reasons"][0].value("code", failed);
    return t.render("incorrect", {{"failed_check", failed}, {"details", first_lines(reasons, 20)}});
  }
  if (v == "runtime_error") return t.render("runtime_error", {{"error", first_lines(reasons, 20)}});
  if (v == "timeout") return t.render("timeout", {{"error", first_lines(reasons, 20)}});
  if (v == "rejected") return t.render("rejected", {{"reason", first_lines(reasons, 20)}});
  if (v == "no_code") {
    std::string msg = verdict.contains("reasons") && !verdict["reasons"].empty()
                          ? verdict["reasons"][0].value("detail", "")
                          : "Your answer contained no usable code block.";
    return t.render("no_code", {{"reason", msg}, {"code_label", code_label}});
  }
  return make_error("feedback.verdict", "no feedback template for verdict '" + v + "'");
}

}  // namespace kf::agent
