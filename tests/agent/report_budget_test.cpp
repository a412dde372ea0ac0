// Strategies compared at equal budget (agent/report/budget_curves.h) on the hand-built corpus
// fixtures/report_corpus/evaluations.jsonl; every figure is worked out by hand in the comments.
#include <cmath>

#include <gtest/gtest.h>

#include "agent/report/report.h"
#include "agent/report/report_plots.h"
#include "corpus/reader.h"

namespace kf::agent {
namespace {

const char* kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/report_corpus";

class EqualBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = corpus::load(kFixture);
    ASSERT_TRUE(c.ok()) << c.error().message;
    summaries = summarize(*c);
    ASSERT_EQ(summaries.size(), 2u);
  }
  const ConfigSummary& alpha() const { return summaries[0]; }
  const ConfigSummary& beta() const { return summaries[1]; }
  std::vector<ConfigSummary> summaries;
};

const SearchCourse& search(const ConfigSummary& s, const std::string& problem) {
  for (const auto& c : s.searches)
    if (c.problem == problem) return c;
  throw std::runtime_error("no search of " + problem);
}

TEST_F(EqualBudget, ASearchKeepsItsImprovementsAndItsWholeSpend) {
  // alpha matmul: t1 compile_error, t2 correct 0.5x, t3 correct 1.6x; 150 tokens and $0.01 a reply.
  const auto& mm = search(alpha(), "1_Square_matrix_multiplication_");
  ASSERT_EQ(mm.improvements.size(), 2u);
  EXPECT_EQ(mm.improvements[0].evaluations, 2);
  EXPECT_EQ(*mm.improvements[0].best_speedup, 0.5);
  EXPECT_EQ(mm.improvements[1].evaluations, 3);
  EXPECT_EQ(mm.improvements[1].tokens, 450);
  EXPECT_EQ(*mm.improvements[1].best_speedup, 1.6);
  EXPECT_EQ(mm.total.evaluations, 3);
  // alpha LayerNorm: incorrect, a harness failure (its reply's 150 tokens count, no evaluation), correct 1.2x.
  const auto& ln = search(alpha(), "40_LayerNorm");
  ASSERT_EQ(ln.improvements.size(), 1u);
  EXPECT_EQ(ln.improvements[0].evaluations, 2);
  EXPECT_EQ(ln.improvements[0].tokens, 450);
  // beta ReLU: both samples together, corpus order: s0 0.8x, s1 runtime_error, s0 0.9x, a provider failure.
  const auto& relu = search(beta(), "19_ReLU");
  ASSERT_EQ(relu.improvements.size(), 2u);
  EXPECT_EQ(relu.improvements[1].evaluations, 3);
  EXPECT_EQ(relu.total.tokens, 4500);
  // beta matmul: correct without a timed speedup: correct, no best speedup.
  const auto& bmm = search(beta(), "1_Square_matrix_multiplication_");
  ASSERT_EQ(bmm.improvements.size(), 1u);
  EXPECT_TRUE(bmm.improvements[0].correct);
  EXPECT_FALSE(bmm.improvements[0].best_speedup);
}

TEST_F(EqualBudget, FiguresAtEachBudget) {
  // alpha's best speedups within e evaluations per problem (ReLU 2.5 at 1, LayerNorm 1.2 at 2, matmul 0.5 at 2
  // and 1.6 at 3; Softmax never), every unsolved or slower problem counting 1x, over its 4 problems.
  auto a1 = at_budget(alpha().searches, BudgetAxis::evaluations, 1);
  EXPECT_EQ(a1.problems, 4);
  EXPECT_EQ(a1.correct, 1);
  EXPECT_EQ(a1.faster, 1);
  EXPECT_NEAR(*a1.geomean_best, std::pow(2.5, 0.25), 1e-12);
  auto a2 = at_budget(alpha().searches, BudgetAxis::evaluations, 2);
  EXPECT_EQ(a2.correct, 3);  // matmul's 0.5x is correct, not faster
  EXPECT_EQ(a2.faster, 2);
  EXPECT_NEAR(*a2.geomean_best, std::pow(2.5 * 1.2, 0.25), 1e-12);
  auto a3 = at_budget(alpha().searches, BudgetAxis::evaluations, 3);
  EXPECT_EQ(a3.faster, 3);
  EXPECT_NEAR(*a3.geomean_best, std::pow(1.6 * 2.5 * 1.2, 0.25), 1e-12);
  // Tokens: the first reply of every problem costs 150, so nothing is reached below that.
  EXPECT_DOUBLE_EQ(*at_budget(alpha().searches, BudgetAxis::tokens, 149).geomean_best, 1.0);
  EXPECT_EQ(at_budget(alpha().searches, BudgetAxis::tokens, 150).faster, 1);
  // beta: cumsum never got a reply (not attempted); ReLU 0.8x then 0.9x and matmul untimed: correct, none faster.
  auto b = at_budget(beta().searches, BudgetAxis::evaluations, 3);
  EXPECT_EQ(b.problems, 2);
  EXPECT_EQ(b.correct, 2);
  EXPECT_EQ(b.faster, 0);
  EXPECT_DOUBLE_EQ(*b.geomean_best, 1.0);
  EXPECT_FALSE(at_budget({}, BudgetAxis::evaluations, 1).geomean_best);
}

TEST_F(EqualBudget, LevelsAreCommonToEveryConfiguration) {
  std::vector<const std::vector<SearchCourse>*> all = {&alpha().searches, &beta().searches};
  // The largest search: 3 evaluations (alpha matmul, beta ReLU); 4500 tokens and $0.30 (beta ReLU).
  EXPECT_EQ(budget_levels(all, BudgetAxis::evaluations), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(budget_levels(all, BudgetAxis::tokens), (std::vector<double>{70, 280, 1100, 4500}));
  const auto dollars = budget_levels(all, BudgetAxis::dollars);
  ASSERT_EQ(dollars.size(), 4u);
  EXPECT_NEAR(dollars[0], 0.0047, 1e-12);
  EXPECT_NEAR(dollars[1], 0.019, 1e-12);
  EXPECT_NEAR(dollars[2], 0.075, 1e-12);
  EXPECT_NEAR(dollars[3], 0.3, 1e-12);
  std::vector<SearchCourse> none;
  EXPECT_TRUE(budget_levels({&none}, BudgetAxis::dollars).empty());
  EXPECT_EQ(budget_label(4500, BudgetAxis::tokens), "<= 4500 tokens");
  EXPECT_EQ(budget_label(0.019, BudgetAxis::dollars), "<= $0.019");
  EXPECT_EQ(budget_label(2, BudgetAxis::evaluations), "<= 2");
}

TEST_F(EqualBudget, TablesAreAddedAfterTheExistingOnes) {
  auto tables = report_tables(summaries);
  ASSERT_EQ(tables.size(), 6u);  // figures, per category, then evaluations, tokens, dollars, lineage
  const auto& t = tables[2];
  EXPECT_NE(t.heading.find("evaluations per problem"), std::string::npos);
  EXPECT_EQ(t.header, (std::vector<std::string>{"configuration", "strategy", "<= 1", "<= 2", "<= 3"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][0], "alpha");
  EXPECT_EQ(t.rows[0][1], "refine");  // records without lineage
  EXPECT_EQ(t.rows[0][2], "1.257x (1/4 faster)");
  EXPECT_EQ(t.rows[0][4], "1.480x (3/4 faster)");
  EXPECT_EQ(t.rows[1][4], "1.000x (0/2 faster)");
  const std::string md = format_report(summaries, ReportFormat::md, "t");
  EXPECT_LT(md.find("## Per category"), md.find("## Best speedup at equal budget: evaluations per problem"));
  const auto j = nlohmann::json::parse(format_report(summaries, ReportFormat::json, "t"));
  EXPECT_EQ(j["equal_budget"]["evaluations"]["levels"], nlohmann::json::array({1, 2, 3}));
  EXPECT_EQ(j["equal_budget"]["evaluations"]["configurations"]["alpha"]["at"][2]["faster"], 3);
  EXPECT_EQ(j["configurations"][0]["strategy"], "refine");
  EXPECT_EQ(j["configurations"][0]["searches"].size(), 4u);
}

TEST_F(EqualBudget, RefineLineageIsThePreviousTurn) {
  auto t = lineage_table(summaries);
  ASSERT_TRUE(t);
  // alpha: matmul t3 (1.6x), ReLU t1, LayerNorm t2; beta: ReLU s0 t2 (0.9x beats 0.8x), matmul untimed.
  ASSERT_EQ(t->rows.size(), 5u);
  EXPECT_EQ(t->rows[0], (std::vector<std::string>{"alpha", "19_ReLU", "2.500x", "s0 t1", "refine", "-", "-",
                                                  "- (first turn)", "-"}));
  EXPECT_EQ(t->rows[1][1], "1_Square_matrix_multiplication_");
  EXPECT_EQ(t->rows[1][7], "s0 t2");
  EXPECT_EQ(t->rows[4][1], "1_Square_matrix_multiplication_");
  EXPECT_EQ(t->rows[4][2], "-");  // correct, untimed
}

// Three strategies on two problems (fixtures/strategies_corpus/README.md derives every figure).
class StrategiesReport : public ::testing::Test {
 protected:
  void SetUp() override {
    auto folder = summarize_folder(KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/strategies_corpus", {});
    ASSERT_TRUE(folder.ok()) << folder.error().message;
    summaries = std::move(folder->summaries);
    ASSERT_EQ(summaries.size(), 3u);  // beam, evolve, refine (by name)
  }
  std::vector<ConfigSummary> summaries;
};

TEST_F(StrategiesReport, EachConfigurationNamesItsStrategyAndComparesAtTheSameBudgets) {
  EXPECT_EQ(summaries[0].strategy, "beam");
  EXPECT_EQ(summaries[1].strategy, "evolve");
  EXPECT_EQ(summaries[2].strategy, "refine");
  auto tables = equal_budget_tables(summaries);
  ASSERT_EQ(tables.size(), 3u);
  const auto& e = tables[0];
  EXPECT_EQ(e.header, (std::vector<std::string>{"configuration", "strategy", "<= 1", "<= 2", "<= 4", "<= 6"}));
  EXPECT_EQ(e.rows[0], (std::vector<std::string>{"beam", "beam", "1.149x (2/2 faster)", "1.149x (2/2 faster)",
                                                 "1.715x (2/2 faster)", "2.223x (2/2 faster)"}));
  EXPECT_EQ(e.rows[1][3], "1.249x (2/2 faster)");
  EXPECT_EQ(e.rows[1][5], "2.408x (2/2 faster)");
  EXPECT_EQ(e.rows[2][2], "1.000x (0/2 faster)");
  EXPECT_EQ(e.rows[2][5], "1.396x (2/2 faster)");
  // Tokens: evolve's searches are the largest (900 x 2 + 1,200 x 4 = 6,600).
  EXPECT_EQ(tables[1].header.back(), "<= 6600 tokens");
}

TEST_F(StrategiesReport, LineageOfEachProblemsBestKernel) {
  auto t = lineage_table(summaries);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), 6u);
  EXPECT_EQ(t->rows[0],
            (std::vector<std::string>{"beam", "19_relu", "1.900x", "s0 t3", "beam", "3", "-", "s0 t2", "-"}));
  EXPECT_EQ(t->rows[2],
            (std::vector<std::string>{"evolve", "19_relu", "2.000x", "s0 t3", "evolve", "3", "0", "s0 t2", "s1 t2"}));
  EXPECT_EQ(t->rows[3][8], "-");  // evolve 1_matmul: no inspiration
  EXPECT_EQ(t->rows[5],
            (std::vector<std::string>{"refine", "1_matmul", "1.500x", "s0 t4", "refine", "-", "-", "s0 t3", "-"}));
  const auto j = summaries[1].to_json();
  EXPECT_EQ(j["best_per_problem"][0]["lineage"]["island"], 0);
  EXPECT_EQ(j["strategy"], "evolve");
}

TEST_F(EqualBudget, BestSoFarCurvesStepWhereASearchImproves) {
  auto plots = report_plots(summaries);
  const Plot* evals = nullptr;
  for (const auto& p : plots)
    if (p.id == "best_so_far_evaluations") evals = &p;
  ASSERT_NE(evals, nullptr);
  ASSERT_FALSE(evals->script.empty()) << evals->no_data;
  EXPECT_EQ(evals->series[0], "alpha (refine)");
  // alpha's steps: 1x at 0, 2.5^(1/4) at 1, 3^(1/4) at 2, 4.8^(1/4) at 3.
  EXPECT_NE(evals->script.find("$best_evaluations0 << EOD\n0 1\n1 1.25743\n2 1.31607\n3 1.48017\nEOD"),
            std::string::npos)
      << evals->script;
}

}  // namespace
}  // namespace kf::agent
