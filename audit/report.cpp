#include "audit/report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/format.h"

namespace kf::audit {
namespace {

std::string cell(const PassCount& count) {
  if (count.trials == 0) return "-";
  if (count.passes()) return "PASS";
  if (count.passed == 0) return "fail";
  return "fail (" + std::to_string(count.passed) + "/" + std::to_string(count.trials) + " pass)";
}

std::string format_number(double value) { return format_significant(value, 3); }

// "2 problems: a, b" (or "0 problems").
std::string names_text(const std::vector<std::string>& names) {
  std::string s = std::to_string(names.size()) + (names.size() == 1 ? " problem" : " problems");
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : ": ") + names[i];
  return s;
}

nlohmann::json count_json(const PassCount& count) {
  return {{"passes", count.passes()}, {"passed_trials", count.passed}, {"trials", count.trials}};
}

// Pads each column to its widest cell; the result is also a valid Markdown table.
std::string layout(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::ostringstream out;
  for (size_t r = 0; r < rows.size(); ++r) {
    out << "|";
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string text = c < rows[r].size() ? rows[r][c] : "";
      out << " " << text << std::string(width[c] - text.size(), ' ') << " |";
    }
    out << "\n";
    if (r == 0) {
      out << "|";
      for (size_t c = 0; c < width.size(); ++c) out << std::string(width[c] + 2, '-') << "|";
      out << "\n";
    }
  }
  return out.str();
}

std::string peak_cell(const eval::BaselineTiming& b) { return b.peak ? percent_of_bound(*b.peak) : "-"; }

// One baseline's cells: median, p10-p90, calls, fraction of peak; or its error.
std::vector<std::string> baseline_cells(const std::optional<eval::BaselineTiming>& b,
                                        const std::optional<Error>& error) {
  if (b)
    return {format_number(b->median_ms), format_number(b->p10_ms) + "-" + format_number(b->p90_ms),
            std::to_string(b->calls), peak_cell(*b)};
  if (error) return {"ERROR: " + error->message, "-", "-", "-"};
  return {"-", "-", "-", "-"};
}

// Baselines, when the audit timed them: one line per problem; torch.compile's beside eager's when it was asked
// for, with how many times faster than eager it is.
std::string render_baselines(const AuditReport& report) {
  bool compiled = false;
  for (const auto& problem : report.problems) compiled |= problem.compile_baseline || problem.compile_baseline_error;
  std::vector<std::vector<std::string>> rows = {{"problem", "eager median (ms)", "p10-p90 (ms)", "calls"}};
  if (compiled)
    rows.front() = {"problem",         "eager median (ms)",   "p10-p90 (ms)", "calls",
                    "eager of peak",   "compile median (ms)", "p10-p90 (ms)", "calls",
                    "compile of peak", "eager / compile"};
  for (const auto& problem : report.problems) {
    if (!problem.baseline && !problem.baseline_error) continue;
    std::vector<std::string> row{problem.name};
    auto eager = baseline_cells(problem.baseline, problem.baseline_error);
    row.insert(row.end(), eager.begin(), eager.end() - (compiled ? 0 : 1));
    if (compiled) {
      auto compile = baseline_cells(problem.compile_baseline, problem.compile_baseline_error);
      row.insert(row.end(), compile.begin(), compile.end());
      const bool both = problem.baseline && problem.compile_baseline && problem.compile_baseline->median_ms > 0;
      row.push_back(both ? format_number(problem.baseline->median_ms / problem.compile_baseline->median_ms) + "x"
                         : "-");
    }
    rows.push_back(std::move(row));
  }
  if (rows.size() == 1) return {};
  return std::string(compiled ? "\nPyTorch baselines, eager and torch.compile" : "\nEager PyTorch baselines") +
         " (timed as `kforge eval` times them):\n" + layout(rows);
}

nlohmann::json baseline_json(const eval::BaselineTiming& b) {
  nlohmann::json j = {{"median", b.median_ms}, {"p10", b.p10_ms}, {"p90", b.p90_ms}, {"calls", b.calls}};
  if (b.compile_s > 0) j["compile_s"] = b.compile_s;
  if (b.peak) j["peak"] = b.peak->to_json();
  return j;
}

}  // namespace

std::string format_tolerance(double tolerance) {
  if (tolerance > 0) {
    const double exponent = std::round(std::log10(tolerance));
    if (std::abs(std::pow(10.0, exponent) - tolerance) <= 1e-12 * tolerance) {
      return "1e" + std::to_string(static_cast<int>(exponent));
    }
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", tolerance);
  return buffer;
}

AuditTotals totals(const AuditReport& report) {
  AuditTotals t;
  t.allclose_problems.assign(report.tolerances.size(), 0);
  t.allclose_rows.assign(report.tolerances.size(), 0);
  t.allclose_fooled.assign(report.tolerances.size(), {});
  t.allclose_degenerate.assign(report.tolerances.size(), {});
  for (const auto& problem : report.problems) {
    if (problem.error) {
      ++t.errors;
      continue;
    }
    ++t.problems;
    for (size_t i = 0; i < report.tolerances.size(); ++i) {
      t.allclose_problems[i] += problem.any_allclose_pass(i) ? 1 : 0;
      if (problem.fooled_allclose(i)) t.allclose_fooled[i].push_back(problem.name);
      if (problem.degenerate_for_allclose(i)) t.allclose_degenerate[i].push_back(problem.name);
    }
    t.kforge_problems += problem.any_kforge_pass() ? 1 : 0;
    if (problem.any_kforge_pass()) t.kforge_degenerate.push_back(problem.name);
    for (const auto& row : problem.rows) {
      ++t.rows;
      for (size_t i = 0; i < report.tolerances.size() && i < row.allclose.size(); ++i) {
        t.allclose_rows[i] += row.allclose[i].passes() ? 1 : 0;
      }
      t.kforge_rows += row.kforge.passes() ? 1 : 0;
    }
  }
  return t;
}

std::string render_table(const AuditReport& report) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"problem", "output", "trivial"};
  for (double tol : report.tolerances) header.push_back("allclose@" + format_tolerance(tol));
  header.push_back("itself correct");
  header.push_back("kforge");
  header.push_back("error (worst trial)");
  rows.push_back(header);
  std::vector<std::string> errors;
  for (const auto& problem : report.problems) {
    if (problem.error) {
      std::vector<std::string> row = {problem.name, "-", "ERROR"};
      for (size_t i = 0; i < report.tolerances.size(); ++i) row.push_back("-");
      row.push_back("-");
      row.push_back("-");
      row.push_back("-");
      rows.push_back(row);
      errors.push_back(problem.name + ": " + problem.error->message);
      continue;
    }
    for (const auto& trivial : problem.rows) {
      std::vector<std::string> row = {problem.name, trivial.output, trivial.trivial};
      for (const auto& count : trivial.allclose) row.push_back(cell(count));
      row.push_back(cell(trivial.itself_correct));
      row.push_back(cell(trivial.kforge));
      row.push_back(trivial.floating() ? "rel_l2 " + format_number(trivial.max_rel_l2)
                                       : std::to_string(trivial.max_mismatched) + " elements differ");
      rows.push_back(row);
    }
  }
  std::ostringstream out;
  out << layout(rows);
  const auto t = totals(report);
  out << "\nTotals (allclose and 'itself correct': KernelBench's check on its " << report.kernelbench_trials
      << " correctness trial" << (report.kernelbench_trials == 1 ? "" : "s") << "; kforge: " << report.seeds
      << " kforge trial" << (report.seeds == 1 ? "" : "s") << "; precision " << report.precision << ", backend "
      << report.backend << "; PASS = the trivial output passes on every trial):\n";
  out << "  problems audited: " << t.problems << (t.errors ? ", could not be audited: " + std::to_string(t.errors) : "")
      << "; trivial outputs checked: " << t.rows << "\n";
  for (size_t i = 0; i < report.tolerances.size(); ++i) {
    out << "  allclose@" << format_tolerance(report.tolerances[i]) << " (atol = rtol): a trivial output passes on "
        << t.allclose_problems[i] << " of " << t.problems << " problems (" << t.allclose_rows[i]
        << " trivial outputs)\n";
  }
  out << "  kforge verifier: a trivial output passes on " << t.kforge_problems << " of " << t.problems << " problems ("
      << t.kforge_rows << " trivial outputs)\n";
  out << "Fooled (the check accepts a trivial output that is wrong) and degenerate (a trivial output it accepts is\n"
         "itself correct: kforge's judge accepts it on its own):\n";
  for (size_t i = 0; i < report.tolerances.size(); ++i) {
    const std::string check = "allclose@" + format_tolerance(report.tolerances[i]);
    out << "  " << check << " fooled on " << names_text(t.allclose_fooled[i]) << "\n";
    out << "  " << check << " degenerate: " << names_text(t.allclose_degenerate[i]) << "\n";
  }
  out << "  kforge fooled on 0 problems; degenerate: " << names_text(t.kforge_degenerate) << "\n";
  for (const auto& line : errors) out << "  error: " << line << "\n";
  out << render_baselines(report);
  return out.str();
}

nlohmann::json to_json(const AuditReport& report) {
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : report.problems) {
    nlohmann::json p = {{"problem", problem.path}, {"name", problem.name}};
    if (!problem.evaluator.is_null()) p["evaluator"] = problem.evaluator;
    if (problem.error) {
      p["error"] = {{"code", problem.error->code}, {"message", problem.error->message}};
      p["trivial"] = nlohmann::json::array();
    } else {
      p["error"] = nullptr;
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& row : problem.rows) {
        nlohmann::json allclose = nlohmann::json::object();
        for (size_t i = 0; i < report.tolerances.size() && i < row.allclose.size(); ++i) {
          allclose[format_tolerance(report.tolerances[i])] = count_json(row.allclose[i]);
        }
        rows.push_back({{"output", row.output},
                        {"dtype", row.dtype},
                        {"trivial", row.trivial},
                        {"allclose", allclose},
                        {"itself_correct", count_json(row.itself_correct)},
                        {"kforge", count_json(row.kforge)},
                        {"max_rel_l2", row.max_rel_l2},
                        {"max_mismatched", row.max_mismatched}});
      }
      p["trivial"] = rows;
      nlohmann::json any = nlohmann::json::object();
      for (size_t i = 0; i < report.tolerances.size(); ++i) {
        any[format_tolerance(report.tolerances[i])] = problem.any_allclose_pass(i);
      }
      p["trivial_passes_allclose"] = any;
      p["trivial_passes_kforge"] = problem.any_kforge_pass();
      nlohmann::json fooled = nlohmann::json::object(), degenerate = nlohmann::json::object();
      for (size_t i = 0; i < report.tolerances.size(); ++i) {
        fooled["allclose@" + format_tolerance(report.tolerances[i])] = problem.fooled_allclose(i);
        degenerate["allclose@" + format_tolerance(report.tolerances[i])] = problem.degenerate_for_allclose(i);
      }
      fooled["kforge"] = false;
      degenerate["kforge"] = problem.any_kforge_pass();
      p["fooled"] = fooled;
      p["degenerate"] = degenerate;
    }
    if (problem.baseline)
      p["eager_ms"] = baseline_json(*problem.baseline);
    else if (problem.baseline_error)
      p["eager_ms"] = {{"error", problem.baseline_error->message}};
    if (problem.compile_baseline)
      p["compile_ms"] = baseline_json(*problem.compile_baseline);
    else if (problem.compile_baseline_error)
      p["compile_ms"] = {{"error", problem.compile_baseline_error->message}};
    problems.push_back(p);
  }
  const auto t = totals(report);
  nlohmann::json allclose_totals = nlohmann::json::object();
  nlohmann::json checks = nlohmann::json::object();
  for (size_t i = 0; i < report.tolerances.size(); ++i) {
    allclose_totals[format_tolerance(report.tolerances[i])] = {{"problems", t.allclose_problems[i]},
                                                               {"trivial_outputs", t.allclose_rows[i]}};
    checks["allclose@" + format_tolerance(report.tolerances[i])] = {{"fooled", t.allclose_fooled[i]},
                                                                    {"degenerate", t.allclose_degenerate[i]}};
  }
  checks["kforge"] = {{"fooled", nlohmann::json::array()}, {"degenerate", t.kforge_degenerate}};
  return {{"seeds", report.seeds},
          {"kernelbench_trials", report.kernelbench_trials},
          {"precision", report.precision},
          {"backend", report.backend},
          {"tolerances", report.tolerances},
          {"problems", problems},
          {"totals",
           {{"problems", t.problems},
            {"errors", t.errors},
            {"trivial_outputs", t.rows},
            {"allclose", allclose_totals},
            {"kforge", {{"problems", t.kforge_problems}, {"trivial_outputs", t.kforge_rows}}},
            {"checks", checks}}}};
}

}  // namespace kf::audit
