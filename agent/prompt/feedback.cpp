#include "agent/prompt/feedback.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/format.h"
#include "verdict/kernel_profile.h"

namespace kf::agent {
namespace {

std::string reasons_text(const eval::Verdict& verdict) {
  std::string out;
  for (const auto& r : verdict.reasons) {
    std::string line = r.code;
    if (!r.detail.empty()) line += line.empty() ? r.detail : ": " + r.detail;
    if (!line.empty()) out += (out.empty() ? "" : "\n") + line;
  }
  return out;
}

std::string fmt_optional(const std::optional<double>& v, int decimals) {
  return v ? format_fixed(*v, decimals) : "unknown";
}

std::string percent(double fraction) { return format_significant(fraction * 100, 3) + "%"; }

// What the kernel's time achieves against the work counted: "812 GB/s and 0.204 TFLOP/s achieved".
std::string achieved(const eval::PeakFraction& f) {
  return format_significant(f.achieved_gbps, 3) + " GB/s and " + format_significant(f.achieved_tflops, 3) +
         " TFLOP/s achieved";
}

// How the feedback names a verdict's baseline (claims name theirs with agent/claims/baseline_kind.h).
const char* baseline_in_prose(const std::string& name) {
  if (name == "eager") return "eager PyTorch";
  if (name == "compile") return "torch.compile";
  return "the baseline";
}

}  // namespace

TemplateVars correct_feedback_vars(const eval::Verdict& y) {
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
  if (speedups.empty() && y.speedup) speedups = format_fixed(*y.speedup, 3) + "x over " + baseline_in_prose(y.baseline);
  vars["speedups"] = speedups.empty() ? "unknown (no baseline was timed)" : speedups;
  std::string roofline;
  if (y.peak) {
    roofline = "Your kernel reaches " + eval::percent_of_bound(*y.peak) + " (" + achieved(*y.peak) + ")";
    for (const char* name : {"eager", "compile"}) {
      auto it = y.baselines.find(name);
      if (it != y.baselines.end() && it->second.peak)
        roofline += std::string("; ") + baseline_in_prose(name) + " reaches " + percent(it->second.peak->fraction);
    }
    roofline +=
        " (the bound: the minimum bytes moved at the device's memory bandwidth, or the counted FLOPs at "
        "its compute peak, whichever takes longer).";
  }
  vars["roofline"] = roofline.empty() ? "Its fraction of the hardware's peak is unknown." : roofline;
  vars["peak_fraction"] = y.peak ? percent(y.peak->fraction) : "unknown";
  vars["bound_by"] = y.peak ? y.peak->bound_by : "unknown";
  vars["achieved"] = y.peak ? achieved(*y.peak) : "unknown";
  // Nsight Compute's figures, when the trusted side profiled the kernel (feedback.ncu): a line of its own.
  const auto& profile = y.checks.profile;
  vars["profile"] = profile && profile->has_figures() ? "\n" + profile->describe() : "";
  return vars;
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

Result<std::string> render_feedback(const PromptTemplates& t, const eval::Verdict& verdict,
                                    const std::string& code_label) {
  using eval::VerdictKind;
  const std::string reasons = reasons_text(verdict);
  switch (verdict.kind) {
    case VerdictKind::correct: return t.render("correct", correct_feedback_vars(verdict));
    case VerdictKind::compile_error: {
      // A specific reason (compile_error.missing_package, .timeout, ...) says more than the compiler's
      // output, which may not mention it: it goes first.
      const bool specific = std::any_of(verdict.reasons.begin(), verdict.reasons.end(),
                                        [](const eval::Reason& r) { return r.code != "compile_error"; });
      std::string out = verdict.compiler_output;
      if (out.empty())
        out = reasons;
      else if (specific)
        out = reasons + "\n" + out;
      return t.render("compile_error", {{"compiler_errors", first_lines(out, 40)}});
    }
    case VerdictKind::incorrect: {
      const std::string failed = verdict.reasons.empty() ? "output mismatch" : verdict.reasons.front().code;
      return t.render("incorrect", {{"failed_check", failed}, {"details", first_lines(reasons, 20)}});
    }
    case VerdictKind::runtime_error: return t.render("runtime_error", {{"error", first_lines(reasons, 20)}});
    case VerdictKind::timeout: return t.render("timeout", {{"error", first_lines(reasons, 20)}});
    case VerdictKind::rejected: return t.render("rejected", {{"reason", first_lines(reasons, 20)}});
    case VerdictKind::no_code: {
      const std::string msg =
          verdict.reasons.empty() ? "Your answer contained no usable code block." : verdict.reasons.front().detail;
      return t.render("no_code", {{"reason", msg}, {"code_label", code_label}});
    }
    case VerdictKind::harness_error:
    case VerdictKind::unknown: break;
  }
  return make_error("feedback.verdict", "no feedback template for verdict '" + verdict.name() + "'");
}

}  // namespace kf::agent
