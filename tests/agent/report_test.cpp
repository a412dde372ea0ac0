// Report figures against a hand-built corpus (fixtures/report_corpus/evaluations.jsonl). Every
// expected figure below is worked out by hand from that file; the derivation is in the comments.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "agent/report/report.h"
#include "corpus/reader.h"
#include "corpus/writer.h"
#include "tests/support/command.h"

namespace kf::agent {
namespace {

const char* kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/report_corpus";

class ReportFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = corpus::load(kFixture);
    ASSERT_TRUE(c.ok()) << c.error().message;
    loaded = *c;
    summaries = summarize(loaded);
    ASSERT_EQ(summaries.size(), 2u);
  }
  const ConfigSummary& alpha() const { return summaries[0]; }
  const ConfigSummary& beta() const { return summaries[1]; }
  corpus::Corpus loaded;
  std::vector<ConfigSummary> summaries;
};

TEST_F(ReportFixture, TornLastLineIsSkipped) {
  // 17 complete lines; the 18th is a record cut off mid-write.
  EXPECT_EQ(loaded.records.size(), 17u);
  EXPECT_EQ(loaded.torn_tails, 1);
  EXPECT_TRUE(loaded.damaged.empty());
}

TEST_F(ReportFixture, BestIsTheFastestCorrectKernelPerUnit) {
  std::vector<std::tuple<std::string, std::string, int, int>> best;
  for (const auto& r : loaded.records)
    if (r.best) best.emplace_back(r.config, r.problem.name, r.sample, r.turn);
  // alpha: matmul turn 3 (1.6 beats 0.5 at turn 2), ReLU turn 1, LayerNorm turn 2; Softmax has none.
  // beta: ReLU sample 0 turn 2 (0.9 beats 0.8), matmul sample 0 turn 1 (correct, untimed).
  std::vector<std::tuple<std::string, std::string, int, int>> want = {
      {"alpha", "19_ReLU", 0, 1}, {"alpha", "1_Square_matrix_multiplication_", 0, 3}, {"alpha", "40_LayerNorm", 0, 2},
      {"beta", "19_ReLU", 0, 2},  {"beta", "1_Square_matrix_multiplication_", 0, 1},
  };
  std::sort(best.begin(), best.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(best, want);
}

TEST_F(ReportFixture, AlphaFigures) {
  const auto& s = alpha();
  EXPECT_EQ(s.config, "alpha");
  EXPECT_EQ(s.provider, "openai-chat");
  // Units: matmul, ReLU, Softmax, LayerNorm (one sample each).
  EXPECT_EQ(s.problems_attempted, 4);
  EXPECT_EQ(s.units, 4);
  // Compiled: matmul (turns 2, 3), ReLU, LayerNorm (incorrect compiled); Softmax only no_code and
  // compile_error -> 3 of 4 = 75%.
  EXPECT_EQ(s.units_compiled, 3);
  EXPECT_DOUBLE_EQ(s.pct(s.units_compiled), 75.0);
  // Correct: matmul, ReLU, LayerNorm -> 3 of 4.
  EXPECT_EQ(s.units_correct, 3);
  // Best speedups 1.6, 2.5, 1.2: > 0: 3, > 1: 3, > 1.5: 2 (1.6, 2.5), > 2: 1 (2.5).
  EXPECT_EQ(s.fast_count.at("0"), 3);
  EXPECT_EQ(s.fast_count.at("1.0"), 3);
  EXPECT_EQ(s.fast_count.at("1.5"), 2);
  EXPECT_EQ(s.fast_count.at("2.0"), 1);
  // The fixture's verdicts carry no timing spread, so no speedup is verified (verified_corpus tests the rule).
  EXPECT_EQ(s.faster_unverified, 3);
  EXPECT_EQ(s.verified_speedups, 0);
  EXPECT_EQ(s.unverified.at("no_spread"), 3);
  // Median of {1.2, 1.6, 2.5} = 1.6; geomean = (1.6*2.5*1.2)^(1/3) = 4.8^(1/3) = 1.68687...
  ASSERT_TRUE(s.median_speedup);
  EXPECT_DOUBLE_EQ(*s.median_speedup, 1.6);
  ASSERT_TRUE(s.geomean_speedup);
  EXPECT_NEAR(*s.geomean_speedup, std::cbrt(4.8), 1e-12);
  EXPECT_NEAR(*s.geomean_speedup, 1.686865, 1e-6);
  EXPECT_DOUBLE_EQ(*s.median_speedup_of_wins, 1.6);
  // Tokens: 8 evaluations x 150 + the harness failure's 150 + the provider failure's 0 = 1350;
  // cost 9 x $0.01 = $0.09. Per problem /4: 337.5 tokens, $0.0225. Per correct /3: 450, $0.03.
  EXPECT_EQ(s.evaluations, 8);
  EXPECT_EQ(s.tokens, 1350);
  EXPECT_NEAR(s.cost_usd, 0.09, 1e-12);
  EXPECT_DOUBLE_EQ(*s.tokens_per_problem, 337.5);
  EXPECT_NEAR(*s.cost_per_problem, 0.0225, 1e-12);
  EXPECT_DOUBLE_EQ(*s.tokens_per_correct, 450.0);
  EXPECT_NEAR(*s.cost_per_correct, 0.03, 1e-12);
  // Kernel failures: compile_error 2 (matmul t1, Softmax t2), no_code 1, incorrect 1.
  EXPECT_EQ(s.kernel_failures_total(), 4);
  EXPECT_EQ(s.kernel_failures.at("compile_error"), 2);
  EXPECT_EQ(s.kernel_failures.at("no_code"), 1);
  EXPECT_EQ(s.kernel_failures.at("incorrect"), 1);
  // Provider failures are not kernel failures: one 503 (server) on Softmax turn 3.
  EXPECT_EQ(s.provider_failures_total(), 1);
  EXPECT_EQ(s.provider_failures.at("server"), 1);
  EXPECT_EQ(s.harness_failures, 1);
  // Categories: matmul 1/1 faster 1 (1.6); activation 2 units (ReLU, Softmax), 1 correct, 1 faster
  // (2.5); norm 1/1, faster 1 (1.2).
  EXPECT_EQ(s.categories.at("matmul").units, 1);
  EXPECT_EQ(s.categories.at("matmul").faster, 1);
  EXPECT_EQ(s.categories.at("activation").units, 2);
  EXPECT_EQ(s.categories.at("activation").correct, 1);
  EXPECT_DOUBLE_EQ(*s.categories.at("activation").median_speedup, 2.5);
  EXPECT_DOUBLE_EQ(*s.categories.at("norm").median_speedup, 1.2);
}

TEST_F(ReportFixture, BetaFigures) {
  const auto& s = beta();
  // Units with a reply: ReLU s0, ReLU s1, matmul s0 (3); cumsum has only a provider failure.
  EXPECT_EQ(s.units, 3);
  EXPECT_EQ(s.units_no_reply, 1);
  EXPECT_EQ(s.problems_attempted, 2);
  // Compiled: all three (runtime_error compiled). Correct: ReLU s0 and matmul s0 -> 2/3 = 66.67%.
  EXPECT_EQ(s.units_compiled, 3);
  EXPECT_EQ(s.units_correct, 2);
  EXPECT_NEAR(s.pct(s.units_correct), 200.0 / 3.0, 1e-9);
  // Best timed speedups: {0.9} (matmul's correct kernel is untimed: counts for fast_0 only).
  EXPECT_EQ(s.fast_count.at("0"), 2);
  EXPECT_EQ(s.fast_count.at("1.0"), 0);
  EXPECT_EQ(s.verified_speedups, 0);
  EXPECT_DOUBLE_EQ(*s.median_speedup, 0.9);
  EXPECT_DOUBLE_EQ(*s.geomean_speedup, 0.9);
  EXPECT_FALSE(s.median_speedup_of_wins);
  // Tokens: 4 evaluations x (1000 + 200 + 300) = 6000, cost 4 x $0.1 = $0.4; per problem /2; per correct /2.
  EXPECT_EQ(s.tokens, 6000);
  EXPECT_NEAR(s.cost_usd, 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(*s.tokens_per_problem, 3000.0);
  EXPECT_NEAR(*s.cost_per_correct, 0.2, 1e-12);
  EXPECT_EQ(s.kernel_failures_total(), 1);
  EXPECT_EQ(s.kernel_failures.at("runtime_error"), 1);
  EXPECT_EQ(s.provider_failures.at("rate_limit"), 1);
  EXPECT_EQ(s.provider_failures.at("network"), 1);
}

TEST_F(ReportFixture, FormatsCarryTheFigures) {
  auto md = format_report(summaries, ReportFormat::md, "fixture");
  EXPECT_NE(md.find("| correct (fast_0) | 3/4 (75.0%) | 2/3 (66.7%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| median speedup (correct) | 1.600x | 0.900x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| verified speedups | 0 of 4 | 0 of 3 |"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| faster than baseline (unverified) | 3 of 4 (not verified: 3 without a timing spread) | 0 of 3 |"),
      std::string::npos)
      << md;
  auto csv = format_report(summaries, ReportFormat::csv, "fixture");
  EXPECT_NE(csv.find(",alpha,openai-chat,m-a,kf_forward,4,4,3,75.00,3,75.00,0.7500,0.7500,0.5000,0.2500,0,3,1.6000,"),
            std::string::npos)
      << csv;
  // beta's records name their candidate format; alpha's predate the field, so they are kf_forward.
  EXPECT_NE(md.find("| candidate format | kf_forward | kernelbench-cuda |"), std::string::npos) << md;
  EXPECT_NE(csv.find(",beta,anthropic,m-b,kernelbench-cuda,"), std::string::npos) << csv;
  auto j = nlohmann::json::parse(format_report(summaries, ReportFormat::json, "fixture"));
  EXPECT_EQ(j["configurations"][1]["candidate_format"], "kernelbench-cuda");
  EXPECT_EQ(j["configurations"][0]["fast_p"]["1.5"]["count"], 2);
  EXPECT_EQ(j["configurations"][1]["provider_failures"]["total"], 2);
}

TEST_F(ReportFixture, TheStreamedFolderReportEqualsTheInMemoryOne) {
  auto streamed = summarize_folder(kFixture, {});
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  ASSERT_EQ(streamed->summaries.size(), summaries.size());
  for (size_t i = 0; i < summaries.size(); ++i) EXPECT_EQ(streamed->summaries[i].to_json(), summaries[i].to_json());
  EXPECT_TRUE(streamed->imports.records.empty());
  EXPECT_EQ(streamed->imports.torn_tails, 1);
}

// A record of unit (cfg, p, 0) at `turn`: correct when `speedup` is given (untimed when it is negative).
corpus::RecordSummary kernel(const std::string& problem, int turn, std::optional<double> speedup) {
  corpus::RecordSummary r;
  r.kind = corpus::Kind::evaluation;
  r.key = {"cfg", problem, 0};
  r.turn = turn;
  r.tokens = 10;
  r.cost_usd = 0.5;
  r.correct = speedup.has_value();
  r.verdict = r.correct ? eval::VerdictKind::correct : eval::VerdictKind::incorrect;
  if (speedup && *speedup >= 0) r.speedup = speedup;
  return r;
}

TEST(ReportAggregator, KeepsNoRecordAndReadsBackOnlyEachUnitsBestKernel) {
  // 10,000 records of one unit and 3 of another: finish() reads back one record per unit (the best, by its
  // place), so nothing of the other records can have been kept for the report.
  ReportAggregator agg;
  uint64_t place = 0;
  for (int t = 1; t <= 10000; ++t) {
    std::optional<double> sp;
    if (t % 3 == 0) sp = 1.0 + (t % 1000) / 1000.0;  // best: 1.999, first at turn 999 (again at 3999, ...)
    agg.add(kernel("big", t, sp), {0, place++, 0});
  }
  const uint64_t big_best = 998;                 // turn 999's place
  agg.add(kernel("small", 1, -1.0), {1, 7, 0});  // correct, untimed
  agg.add(kernel("small", 2, std::nullopt), {1, 8, 0});
  agg.add(kernel("small", 3, -1.0), {1, 9, 0});  // untimed too: the earlier turn stays best
  std::vector<std::pair<uint32_t, uint64_t>> fetched;
  auto out = agg.finish({}, [&](const corpus::RecordPlace& p) -> Result<corpus::Record> {
    fetched.emplace_back(p.file, p.offset);
    corpus::Record r;
    r.kind = corpus::Kind::evaluation;
    r.config = "cfg";
    r.problem.name = p.file == 0 ? "big" : "small";
    r.turn = p.file == 0 ? static_cast<int>(p.offset) + 1 : 1;
    r.verdict = eval::Verdict::from_json(
        {{"verdict", "correct"}, {"correct", true}, {"speedup", p.file == 0 ? nlohmann::json(1.999) : nullptr}});
    return r;
  });
  ASSERT_TRUE(out.ok()) << out.error().message;
  const std::vector<std::pair<uint32_t, uint64_t>> want = {{0, big_best}, {1, 7}};
  EXPECT_EQ(fetched, want);
  ASSERT_EQ(out->size(), 1u);
  const auto& s = (*out)[0];
  EXPECT_EQ(s.evaluations, 10003);
  EXPECT_EQ(s.units, 2);
  EXPECT_EQ(s.units_correct, 2);
  EXPECT_EQ(s.tokens, 100030);
  ASSERT_EQ(s.outcomes.size(), 2u);
  EXPECT_EQ(s.outcomes[0].problem, "big");
  EXPECT_EQ(s.outcomes[0].best_turn, 999);
  EXPECT_EQ(s.outcomes[0].first_correct_turn, 3);
  EXPECT_DOUBLE_EQ(*s.outcomes[0].best_speedup, 1.999);
  EXPECT_EQ(s.outcomes[1].best_turn, 1);
  EXPECT_FALSE(s.outcomes[1].best_speedup);
  EXPECT_EQ(s.kernel_failures.at("incorrect"), 6667 + 1);
}

TEST(ReportAggregator, ABestKernelThatIsNotWhereItWasReadIsAnError) {
  ReportAggregator agg;
  agg.add(kernel("p", 1, 2.0), {0, 0, 0});
  auto out = agg.finish({}, [](const corpus::RecordPlace&) -> Result<corpus::Record> {
    corpus::Record other;
    other.kind = corpus::Kind::evaluation;
    other.config = "cfg";
    other.problem.name = "another";
    other.turn = 1;
    other.verdict = eval::Verdict::from_json({{"verdict", "correct"}, {"correct", true}});
    return other;
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, "report.corpus_changed");
}

TEST(Report, AFolderReportStreamsManyRecordsOfAUnitAndAgreesWithTheLoad) {
  const std::string dir = kf::testing::make_temp_dir("kforge-report-stream-test");
  {
    auto w = corpus::Writer::open(dir);
    ASSERT_TRUE(w.ok()) << w.error().message;
    for (int t = 1; t <= 2000; ++t) {
      corpus::Record r;
      r.kind = t % 500 == 0 ? corpus::Kind::provider_failure : corpus::Kind::evaluation;
      r.config = t % 2 ? "odd" : "even";
      r.provider = "openai-chat";
      r.problem = {t % 7 ? "19_ReLU" : "1_Square_matrix_multiplication_", "h", "", "/p.py"};
      r.sample = t % 3;
      r.turn = t;
      r.usage.input_tokens = t;
      r.cost_usd = 0.001 * t;
      r.feedback = std::string(200, 'x');
      if (r.kind == corpus::Kind::provider_failure) {
        r.error = corpus::ProviderErrorInfo{"rate_limit", "none", "m", "a", 429, 2};
      } else {
        const bool correct = t % 4 != 1;
        nlohmann::json v = {
            {"verdict", correct ? "correct" : "incorrect"}, {"correct", correct}, {"reasons", nlohmann::json::array()}};
        if (correct && t % 5) v["speedup"] = 0.5 + (t * 37 % 100) / 40.0;
        if (correct && t % 11 == 0)
          v["checks"] = {
              {"timing",
               {{"candidate", {{"p10_ms", 1.0}, {"p90_ms", 1.1}}}, {"baseline", {{"p10_ms", 2.0}, {"p90_ms", 2.2}}}}}};
        r.verdict = eval::Verdict::from_json(v);
      }
      ASSERT_TRUE((*w)->append(r).ok());
    }
  }
  auto loaded = corpus::load(dir);
  ASSERT_TRUE(loaded.ok());
  const auto in_memory = summarize(*loaded);
  auto streamed = summarize_folder(dir, {});
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  ASSERT_EQ(streamed->summaries.size(), 2u);
  ASSERT_EQ(in_memory.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(streamed->summaries[i].to_json(), in_memory[i].to_json());
  EXPECT_EQ(format_report(streamed->summaries, ReportFormat::md, "t"), format_report(in_memory, ReportFormat::md, "t"));
  std::filesystem::remove_all(dir);
}

TEST(Report, MedianAndGeomean) {
  EXPECT_FALSE(median({}));
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(*median({4, 1, 2, 3}), 2.5);
  EXPECT_NEAR(*geometric_mean({1, 4}), 2.0, 1e-12);
}

TEST(Report, FractionOfPeakDistribution) {
  EXPECT_EQ(distribution({}).n, 0);
  EXPECT_FALSE(distribution({}).median);
  auto d = distribution({0.9, 0.1, 0.5, 0.3, 0.7});
  EXPECT_EQ(d.n, 5);
  EXPECT_DOUBLE_EQ(*d.median, 0.5);
  EXPECT_DOUBLE_EQ(*d.p25, 0.3);
  EXPECT_DOUBLE_EQ(*d.p75, 0.7);
  auto two = distribution({0.2, 0.6});
  EXPECT_DOUBLE_EQ(*two.p25, 0.3);  // interpolated between the two
  EXPECT_DOUBLE_EQ(*two.p75, 0.5);
}

TEST(Report, YardsticksOfTheBestKernelReachTheSummary) {
  // One unit, one correct kernel with both baselines and fractions of peak (as `kforge eval --json` writes them).
  corpus::Corpus c;
  corpus::Record r;
  r.kind = corpus::Kind::evaluation;
  r.config = "cfg";
  r.problem.name = "19_ReLU";
  r.turn = 1;
  r.best = true;
  auto frac = [](double f) { return nlohmann::json{{"fraction", f}, {"bound_by", "memory"}}; };
  r.verdict = eval::Verdict::from_json({{"verdict", "correct"},
                                        {"correct", true},
                                        {"time_ms", 1.0},
                                        {"ref_time_ms", 2.0},
                                        {"speedup", 2.0},
                                        {"baseline", "eager"},
                                        {"baselines",
                                         {{"eager", {{"time_ms", 2.0}, {"speedup", 2.0}, {"peak", frac(0.2)}}},
                                          {"compile", {{"time_ms", 0.5}, {"speedup", 0.5}, {"peak", frac(0.8)}}}}},
                                        {"peak", frac(0.4)}});
  c.records.push_back(r);
  auto ss = summarize(c);
  ASSERT_EQ(ss.size(), 1u);
  const auto& s = ss[0];
  EXPECT_DOUBLE_EQ(*s.median_speedup_over.at("eager"), 2.0);
  EXPECT_DOUBLE_EQ(*s.median_speedup_over.at("compile"), 0.5);
  EXPECT_DOUBLE_EQ(*s.peak_fraction.median, 0.4);
  EXPECT_DOUBLE_EQ(*s.baseline_peak_fraction.at("compile").median, 0.8);
  ASSERT_EQ(s.outcomes.size(), 1u);
  EXPECT_EQ(s.outcomes[0].bound_by, "memory");
  const std::string md = format_report(ss, ReportFormat::md, "t");
  EXPECT_NE(md.find("| median speedup over torch.compile | 0.500x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fraction of peak: kernels, median [p25-p75] | 40% [40-40%] (n 1) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fraction of peak: torch.compile | 80% [80-80%] (n 1) |"), std::string::npos) << md;
  const std::string csv = format_report(ss, ReportFormat::csv, "t");
  EXPECT_NE(csv.find(",2.0000,0.5000,0.4000,0.4000,0.4000,0.2000,0.8000\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace kf::agent
