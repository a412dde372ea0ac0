#include "audit/audit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace kf::audit {

bool ProblemAudit::any_allclose_pass(size_t tolerance_index) const {
  return std::any_of(rows.begin(), rows.end(), [&](const TrivialRow& row) {
    return tolerance_index < row.allclose.size() && row.allclose[tolerance_index].passes();
  });
}

bool ProblemAudit::any_kforge_pass() const {
  return std::any_of(rows.begin(), rows.end(), [](const TrivialRow& row) { return row.kforge.passes(); });
}

bool ProblemAudit::degenerate_for_allclose(size_t tolerance_index) const {
  return std::any_of(rows.begin(), rows.end(), [&](const TrivialRow& row) {
    return tolerance_index < row.allclose.size() && row.allclose[tolerance_index].passes() &&
           row.itself_correct.passes();
  });
}

bool ProblemAudit::fooled_allclose(size_t tolerance_index) const {
  return any_allclose_pass(tolerance_index) && !degenerate_for_allclose(tolerance_index);
}

namespace {

TrivialRow& row_for(ProblemAudit& audit, const eval::TrivialReport& report, size_t tolerance_count) {
  for (auto& row : audit.rows) {
    if (row.output == report.output && row.trivial == report.trivial) return row;
  }
  TrivialRow row;
  row.output = report.output;
  row.dtype = report.dtype;
  row.trivial = report.trivial;
  row.allclose.resize(tolerance_count);
  audit.rows.push_back(std::move(row));
  return audit.rows.back();
}

bool allclose_at(const eval::TrivialReport& report, double tolerance) {
  for (const auto& [tol, ok] : report.allclose) {
    // Tolerances travel through JSON; compare with a relative slack rather than bit equality.
    if (std::abs(tol - tolerance) <= 1e-9 * std::max(std::abs(tol), std::abs(tolerance))) return ok;
  }
  return false;
}

}  // namespace

void accumulate(ProblemAudit& audit, const std::vector<eval::TrivialReport>& reports,
                const std::vector<double>& tolerances, TrialSet set) {
  for (const auto& report : reports) {
    TrivialRow& row = row_for(audit, report, tolerances.size());
    if (set == TrialSet::kernelbench) {
      for (size_t i = 0; i < tolerances.size(); ++i) {
        row.allclose[i].trials += 1;
        row.allclose[i].passed += allclose_at(report, tolerances[i]) ? 1 : 0;
      }
      row.itself_correct.trials += 1;
      row.itself_correct.passed += report.judge_passes ? 1 : 0;
    } else {
      row.kforge.trials += 1;
      row.kforge.passed += report.judge_passes ? 1 : 0;
    }
    row.max_rel_l2 = std::max(row.max_rel_l2, report.stats.rel_l2);
    row.max_mismatched = std::max(row.max_mismatched, report.stats.mismatched_exact);
  }
}

AuditReport run_audit(const AuditRequest& request, const TrivialSource& source,
                      const std::function<void(const std::string&)>& progress, const BaselineSource& baseline) {
  AuditReport report;
  report.tolerances = request.tolerances;
  report.seeds = request.seeds;
  report.kernelbench_trials = request.kernelbench_trials;
  for (const auto& path : request.problems) {
    ProblemAudit audit;
    audit.path = path;
    audit.name = std::filesystem::path(path).stem().string();
    if (progress) progress(audit.name);
    for (TrialSet set : {TrialSet::kernelbench, TrialSet::kforge}) {
      const int trials = set == TrialSet::kernelbench ? request.kernelbench_trials : request.seeds;
      for (int trial = 0; trial < trials && !audit.error; ++trial) {
        auto stats = source(path, set, trial, request.tolerances);
        if (!stats.ok()) {
          audit.error = stats.error();
          audit.rows.clear();
          break;
        }
        accumulate(audit, stats.value(), request.tolerances, set);
      }
    }
    if (baseline && !audit.error) {
      auto timing = baseline(path, "eager");
      if (timing.ok())
        audit.baseline = timing.value();
      else
        audit.baseline_error = timing.error();
      if (request.compile_baseline) {
        auto compiled = baseline(path, "compile");
        if (compiled.ok())
          audit.compile_baseline = compiled.value();
        else
          audit.compile_baseline_error = compiled.error();
      }
    }
    report.problems.push_back(std::move(audit));
  }
  return report;
}

}  // namespace kf::audit
