// Unit tests of the audit's aggregation, path expansion and rendering (no python, no GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "audit/audit.h"
#include "audit/problem_paths.h"
#include "audit/report.h"

namespace {

using kf::audit::AuditReport;
using kf::audit::AuditRequest;
using kf::eval::TrivialReport;

TrivialReport trivial(const std::string& kind, bool loose, bool tight, bool judge, double rel_l2 = 1.0) {
  TrivialReport r;
  r.output = "output0";
  r.dtype = "float32";
  r.trivial = kind;
  r.stats.rel_l2 = rel_l2;
  r.judge_passes = judge;
  r.allclose = {{1e-2, loose}, {1e-4, tight}};
  return r;
}

TEST(AuditAccumulate, PassRequiresEveryTrial) {
  kf::audit::ProblemAudit audit;
  const std::vector<double> tolerances = {1e-2, 1e-4};
  const auto kb = kf::audit::TrialSet::kernelbench;
  kf::audit::accumulate(audit, {trivial("zeros", true, false, false), trivial("constant", true, true, false)},
                        tolerances, kb);
  kf::audit::accumulate(audit, {trivial("zeros", true, false, false), trivial("constant", false, true, false, 2.0)},
                        tolerances, kb);
  ASSERT_EQ(audit.rows.size(), 2u);
  EXPECT_TRUE(audit.rows[0].allclose[0].passes());
  EXPECT_FALSE(audit.rows[0].allclose[1].passes());
  EXPECT_EQ(audit.rows[1].allclose[0].passed, 1);
  EXPECT_FALSE(audit.rows[1].allclose[0].passes());
  EXPECT_TRUE(audit.rows[1].allclose[1].passes());
  EXPECT_DOUBLE_EQ(audit.rows[1].max_rel_l2, 2.0);
  EXPECT_TRUE(audit.any_allclose_pass(0));
  EXPECT_FALSE(audit.any_kforge_pass());
  EXPECT_EQ(audit.rows[0].kforge.trials, 0);  // KernelBench trials never count for the kforge column
  EXPECT_TRUE(audit.fooled_allclose(0));
  EXPECT_FALSE(audit.degenerate_for_allclose(0));
}

// A trivial output that is itself correct (the reference is constant) makes the problem degenerate, not a
// fooled check; kforge trials and KernelBench trials are counted apart.
TEST(AuditAccumulate, DegenerateIsNotFooled) {
  kf::audit::ProblemAudit audit;
  const std::vector<double> tolerances = {1e-2, 1e-4};
  for (int k = 0; k < 5; ++k)
    kf::audit::accumulate(audit, {trivial("zeros", true, true, true, 0.0)}, tolerances,
                          kf::audit::TrialSet::kernelbench);
  kf::audit::accumulate(audit, {trivial("zeros", false, false, true, 0.0)}, tolerances, kf::audit::TrialSet::kforge);
  ASSERT_EQ(audit.rows.size(), 1u);
  EXPECT_EQ(audit.rows[0].allclose[0].trials, 5);
  EXPECT_EQ(audit.rows[0].kforge.trials, 1);
  EXPECT_TRUE(audit.degenerate_for_allclose(0));
  EXPECT_FALSE(audit.fooled_allclose(0));
  AuditReport report;
  report.tolerances = tolerances;
  audit.name = "9_constant";
  report.problems.push_back(audit);
  const auto t = kf::audit::totals(report);
  EXPECT_TRUE(t.allclose_fooled[0].empty());
  ASSERT_EQ(t.allclose_degenerate[0].size(), 1u);
  EXPECT_EQ(t.kforge_degenerate, std::vector<std::string>{"9_constant"});
  const auto json = kf::audit::to_json(report);
  EXPECT_EQ(json["totals"]["checks"]["allclose@1e-2"]["degenerate"][0], "9_constant");
  EXPECT_NE(kf::audit::render_table(report).find("allclose@1e-2 degenerate: 1 problem: 9_constant"), std::string::npos);
}

TEST(AuditRun, ErrorsAreRecordedAndTheAuditGoesOn) {
  AuditRequest request;
  request.problems = {"a/1_good.py", "a/2_bad.py"};
  request.seeds = 2;
  request.kernelbench_trials = 2;
  int calls = 0;
  auto report = kf::audit::run_audit(request,
                                     [&](const std::string& path, kf::audit::TrialSet, int,
                                         const std::vector<double>&) -> kf::Result<std::vector<TrivialReport>> {
                                       ++calls;
                                       if (path.find("bad") != std::string::npos)
                                         return kf::make_error("oracle.problem", "broken reference");
                                       return std::vector<TrivialReport>{trivial("zeros", true, false, true)};
                                     },
                                     {});
  EXPECT_EQ(calls, 5);  // 2 KernelBench + 2 kforge trials, then the broken problem's first call
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_EQ(report.problems[0].name, "1_good");
  EXPECT_EQ(report.problems[0].rows[0].kforge.trials, 2);
  ASSERT_TRUE(report.problems[1].error.has_value());
  const auto t = kf::audit::totals(report);
  EXPECT_EQ(t.problems, 1);
  EXPECT_EQ(t.errors, 1);
  EXPECT_EQ(t.kforge_problems, 1);
  EXPECT_EQ(t.allclose_problems[0], 1);
  EXPECT_EQ(t.allclose_problems[1], 0);
  const auto json = kf::audit::to_json(report);
  EXPECT_EQ(json["totals"]["errors"], 1);
  EXPECT_EQ(json["problems"][0]["trivial"][0]["allclose"]["1e-2"]["passes"], true);
  EXPECT_EQ(json["problems"][1]["error"]["code"], "oracle.problem");
  const auto table = kf::audit::render_table(report);
  EXPECT_NE(table.find("allclose@1e-2"), std::string::npos);
  EXPECT_NE(table.find("broken reference"), std::string::npos);
}

TEST(AuditReport, FormatsTolerances) {
  EXPECT_EQ(kf::audit::format_tolerance(1e-2), "1e-2");
  EXPECT_EQ(kf::audit::format_tolerance(1e-4), "1e-4");
  EXPECT_EQ(kf::audit::format_tolerance(5e-3), "0.005");
}

TEST(AuditPaths, ExpandsFoldersInNumericOrder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(KFORGE_TEST_BINARY_DIR) / "audit_paths_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"10_b.py", "2_a.py", "1_c.py", "__init__.py", "notes.txt"})
    std::ofstream(dir / name) << "\n";
  auto files = kf::audit::expand_problem_paths({dir.string()});
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ(fs::path((*files)[0]).filename(), "1_c.py");
  EXPECT_EQ(fs::path((*files)[1]).filename(), "2_a.py");
  EXPECT_EQ(fs::path((*files)[2]).filename(), "10_b.py");

  EXPECT_FALSE(kf::audit::expand_problem_paths({(dir / "missing.py").string()}).ok());
  EXPECT_FALSE(kf::audit::expand_problem_paths({(dir / "notes.txt").string()}).ok());
  EXPECT_FALSE(kf::audit::expand_problem_paths({}).ok());
  fs::remove_all(dir);
}

}  // namespace
