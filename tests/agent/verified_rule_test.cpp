// The verified-speedup rule (agent/claims/reverify_rule.h) and the report's verified counts, against
// fixtures/verified_corpus; its README.md works every figure out by hand.
#include <array>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "agent/claims/reverify_rule.h"
#include "agent/report/report.h"
#include "corpus/reader.h"

namespace kf::agent {
namespace {

const char* kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/verified_corpus";

nlohmann::json verdict_with(double speedup, std::optional<std::array<double, 4>> spread) {
  nlohmann::json v = {{"verdict", "correct"}, {"correct", true}, {"speedup", speedup}};
  if (spread) {
    const auto& s = *spread;  // kernel p10, p90, baseline p10, p90
    v["checks"]["timing"] = {{"candidate_events", {{"p10_ms", s[0]}, {"p90_ms", s[1]}}},
                             {"baseline", {{"p10_ms", s[2]}, {"p90_ms", s[3]}}}};
  }
  return v;
}

TEST(SpeedupInterval, FromTheRecordedSpread) {
  auto i = speedup_interval(eval::Verdict::from_json(verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1})));
  ASSERT_TRUE(i);
  EXPECT_DOUBLE_EQ(i->low, 1.9 / 1.1);
  EXPECT_DOUBLE_EQ(i->high, 2.1 / 0.9);
  EXPECT_FALSE(speedup_interval(eval::Verdict::from_json(verdict_with(2.0, std::nullopt))));
  EXPECT_FALSE(speedup_interval(
      eval::Verdict::from_json(verdict_with(2.0, std::array<double, 4>{0, 1, 1, 1}))));  // no division by zero
  EXPECT_FALSE(speedup_interval(eval::Verdict::from_json(nlohmann::json("not an object"))));
}

TEST(VerifiedSpeedupRule, EachConditionInOrder) {
  using C = SpeedupCheck;
  auto judge = [](const nlohmann::json& v, std::optional<std::string> status = std::nullopt) {
    return VerifiedSpeedupRule::judge_verdict(eval::Verdict::from_json(v), status).check;
  };
  EXPECT_EQ(judge(verdict_with(0.9, std::array<double, 4>{1, 1, 2, 2})), C::not_faster);
  EXPECT_EQ(judge(verdict_with(1.0, std::array<double, 4>{1, 1, 2, 2})), C::not_faster);  // 1.0 is not faster
  EXPECT_EQ(judge(verdict_with(1.3, std::nullopt)), C::no_spread);
  // [1.0 / 1.2, 1.2 / 0.8]: reaches below 1.0.
  EXPECT_EQ(judge(verdict_with(1.1, std::array<double, 4>{0.8, 1.2, 1.0, 1.2})), C::within_spread);
  // Lower end exactly 1.0 is not above it.
  EXPECT_EQ(judge(verdict_with(1.1, std::array<double, 4>{1.0, 1.0, 1.0, 1.2})), C::within_spread);
  EXPECT_EQ(judge(verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1})), C::verified);
  EXPECT_EQ(judge(verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1}), "holds"), C::verified);
  EXPECT_EQ(judge(verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1}), "not_reproduced"), C::not_held);
  EXPECT_EQ(judge(verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1}), "source_missing"), C::not_held);
  auto incorrect = verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1});
  incorrect["correct"] = false;
  EXPECT_EQ(judge(incorrect), C::not_faster);
  // Timed on inputs that repeated between rounds (a cache could answer them): never verified, even with
  // reverify's "holds"; read by type (a string is not the flag).
  auto repeated = verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1});
  repeated["checks"]["timing"]["inputs_repeated"] = true;
  EXPECT_EQ(judge(repeated), C::inputs_repeated);
  EXPECT_EQ(judge(repeated, "holds"), C::inputs_repeated);
  repeated["checks"]["timing"]["inputs_repeated"] = "true";
  EXPECT_EQ(judge(repeated), C::verified);
  // A KernelBench solution whose kernels replace part of the reference's work, PyTorch the rest: its speedup is
  // kept apart (partial replacement), before the attribution's own condition.
  auto partial = verdict_with(2.0, std::array<double, 4>{0.9, 1.1, 1.9, 2.1});
  partial["flags"] = {"torch_compute_in_forward"};
  partial["checks"]["attribution"] = "in_process";
  EXPECT_EQ(judge(partial), C::partial);
  EXPECT_EQ(std::string(to_string(C::partial)), "partial_replacement");
  partial["flags"] = nlohmann::json::array();
  EXPECT_EQ(judge(partial), C::in_process);
}

TEST(ReverifyResults, MatchesKernelsByTurnAndProblemHash) {
  nlohmann::json doc = {
      {"seed", 7},
      {"kernels",
       {{{"config", "c"},
         {"problem", {{"name", "p"}, {"file_hash", "h1"}}},
         {"sample", 0},
         {"turn", 2},
         {"status", "not_reproduced"}},
        "garbage",
        {{"config", "c"}, {"problem", "no object"}, {"sample", 0}, {"turn", 1}, {"status", "holds"}}}}};
  auto r = ReverifyResults::parse(doc, "mem");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 1u);
  corpus::Record rec;
  rec.config = "c";
  rec.problem = {"p", "h1", "", ""};
  rec.sample = 0;
  rec.turn = 2;
  EXPECT_EQ(r->status_of(rec), "not_reproduced");
  rec.turn = 1;
  EXPECT_FALSE(r->status_of(rec));
  rec.turn = 2;
  rec.problem.file_hash = "h2";  // the problem changed since: that reverify result does not apply
  EXPECT_FALSE(r->status_of(rec));
  EXPECT_FALSE(ReverifyResults::parse(nlohmann::json::array(), "mem").ok());
}

TEST(ReverifyResults, MissingFileIsNoResultsUnreadableFileIsAnError) {
  auto none = ReverifyResults::load(KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/report_corpus");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  const auto dir = std::filesystem::path(KFORGE_TEST_BINARY_DIR) / "verified_rule_test_bad";
  std::filesystem::create_directories(dir);
  {
    std::FILE* f = std::fopen((dir / kReverifyFile).c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{ torn", f);
    std::fclose(f);
  }
  auto bad = ReverifyResults::load(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("kforge reverify"), std::string::npos) << bad.error().message;
}

class VerifiedCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = corpus::load(kFixture);
    ASSERT_TRUE(c.ok()) << c.error().message;
    loaded = *c;
    auto rule = VerifiedSpeedupRule::for_folder(kFixture);
    ASSERT_TRUE(rule.ok()) << rule.error().message;
    ASSERT_TRUE(rule->reverify());
    summaries = summarize(loaded, *rule);
    ASSERT_EQ(summaries.size(), 2u);
  }
  const UnitReached& outcome(size_t config, const std::string& problem) const {
    for (const auto& o : summaries[config].outcomes)
      if (o.problem == problem) return o;
    ADD_FAILURE() << "no unit " << problem;
    static UnitReached none;
    return none;
  }
  corpus::Corpus loaded;
  std::vector<ConfigSummary> summaries;
};

TEST_F(VerifiedCorpus, AlphaCountsMatchTheHandComputation) {
  const auto& a = summaries[0];
  ASSERT_EQ(a.config, "alpha");
  EXPECT_EQ(a.units, 6);
  EXPECT_EQ(a.units_correct, 5);
  // Faster by the median: 1_matmul 2.0, 19_relu 1.1, 23_softmax 1.5, 53_min 1.3.
  EXPECT_EQ(a.faster_unverified, 4);
  EXPECT_EQ(a.fast_count.at("1.0"), 4);
  // Verified: only 1_matmul ([1.727, 2.333], held).
  EXPECT_EQ(a.verified_speedups, 1);
  EXPECT_EQ(a.unverified.at("within_spread"), 1);  // 19_relu: [0.833, 1.5]
  EXPECT_EQ(a.unverified.at("not_held"), 1);       // 23_softmax: [1.333, 1.684], not_reproduced
  EXPECT_EQ(a.unverified.at("no_spread"), 1);      // 53_min: medians only
  EXPECT_EQ(a.reverify_covered, 4);
  EXPECT_EQ(outcome(0, "1_matmul").judgement.check, SpeedupCheck::verified);
  EXPECT_NEAR(outcome(0, "1_matmul").judgement.interval->low, 1.9 / 1.1, 1e-12);
  EXPECT_EQ(outcome(0, "19_relu").judgement.check, SpeedupCheck::within_spread);
  EXPECT_EQ(outcome(0, "23_softmax").judgement.check, SpeedupCheck::not_held);
  EXPECT_EQ(outcome(0, "23_softmax").judgement.reverify_status, "not_reproduced");
  EXPECT_EQ(outcome(0, "40_layernorm").judgement.check, SpeedupCheck::not_faster);
  EXPECT_FALSE(outcome(0, "50_conv").first_correct_turn);
  EXPECT_EQ(outcome(0, "53_min").judgement.check, SpeedupCheck::no_spread);
  // Categories: activation holds 19_relu and 23_softmax, both faster, neither verified.
  EXPECT_EQ(a.categories.at("activation").faster, 2);
  EXPECT_EQ(a.categories.at("activation").verified, 0);
  EXPECT_EQ(a.categories.at("matmul").verified, 1);
  // Correct by turn: turn 1 19_relu, 23_softmax, 53_min; turn 2 adds 1_matmul, 40_layernorm; turn 3 none.
  EXPECT_EQ(a.correct_by_turn, (std::vector<int>{3, 5, 5}));
}

TEST_F(VerifiedCorpus, BetaMatchesReverifyByTurn) {
  const auto& b = summaries[1];
  ASSERT_EQ(b.config, "beta");
  EXPECT_EQ(b.units, 2);
  EXPECT_EQ(b.units_no_reply, 1);
  EXPECT_EQ(b.faster_unverified, 2);
  // 1_matmul verified ([1.048, 1.368], holds); 19_relu's best (turn 2, 3.0x) is now_incorrect under
  // reverify even though its turn-1 kernel held.
  EXPECT_EQ(b.verified_speedups, 1);
  EXPECT_EQ(b.unverified.at("not_held"), 1);
  EXPECT_EQ(outcome(1, "19_relu").best_turn, 2);
  EXPECT_EQ(outcome(1, "19_relu").judgement.reverify_status, "now_incorrect");
  EXPECT_EQ(b.correct_by_turn, (std::vector<int>{2, 2}));
}

TEST_F(VerifiedCorpus, WithoutReverifyTheIntervalDecides) {
  auto plain = summarize(loaded);
  EXPECT_EQ(plain[0].verified_speedups, 2);  // 1_matmul and 23_softmax
  EXPECT_EQ(plain[1].verified_speedups, 2);
  EXPECT_TRUE(plain[0].reverify_file.empty());
}

TEST_F(VerifiedCorpus, TheSameRuleInEveryFormat) {
  auto md = format_report(summaries, ReportFormat::md, "fixture");
  EXPECT_NE(md.find("| verified speedups | 1 of 6 | 1 of 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| faster than baseline (unverified) | 4 of 6 (not verified: 1 without a timing spread, 1 not "
                    "held under reverify, 1 within the spread) | 2 of 2 (not verified: 1 not held under reverify) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Reverify results applied: "), std::string::npos) << md;

  auto csv = format_report(summaries, ReportFormat::csv, "fixture");
  const auto header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",verified_speedups,faster_than_baseline_unverified,"), std::string::npos) << header;
  // alpha: fast_2.0 0 (2.0 is not > 2.0), verified 1, faster 4; failures 5, 0, 0, then the three reasons.
  EXPECT_NE(csv.find(",0.0000,1,4,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",5,0,0,1,1,1,"), std::string::npos) << csv;
  EXPECT_NE(header.find("unverified_no_spread,unverified_within_spread,unverified_not_held"), std::string::npos);

  auto j = nlohmann::json::parse(format_report(summaries, ReportFormat::json, "fixture"));
  const auto& a = j["configurations"][0];
  EXPECT_EQ(a["verified_speedups"], 1);
  EXPECT_EQ(a["faster_than_baseline_unverified"], 4);
  EXPECT_EQ(a["unverified_speedups"]["within_spread"], 1);
  EXPECT_EQ(a["categories"]["matmul"]["verified"], 1);
  bool found = false;
  for (const auto& u : a["units_detail"])
    if (u["problem"] == "23_softmax") {
      found = true;
      EXPECT_EQ(u["speedup_check"], "not_held");
      EXPECT_EQ(u["reverify_status"], "not_reproduced");
      EXPECT_NEAR(u["interval"][0].get<double>(), 1.4 / 1.05, 1e-12);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace kf::agent
