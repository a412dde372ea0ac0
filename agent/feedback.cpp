#include "agent/feedback.h"

#include <cstdio>
#include <sstream>

#include "core/format.h"

namespace kf::agent {
namespace {

std::string fmt_number(const nlohmann::json& v, int decimals) {
  if (!v.is_number()) return "unknown";
  return format_fixed(v.get<double>(), decimals);
}

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

}  // namespace

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
  if (v == "correct") {
    return t.render("correct", {{"time_ms", fmt_number(verdict.value("time_ms", nlohmann::json()), 4)},
                                {"ref_time_ms", fmt_number(verdict.value("ref_time_ms", nlohmann::json()), 4)},
                                {"speedup", fmt_number(verdict.value("speedup", nlohmann::json()), 3)}});
  }
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
