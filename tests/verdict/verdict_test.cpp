// The verdict type: its JSON both ways, how recorded verdicts read (old, hand-edited, from a later kforge), the
// typed summaries of its checks, and the primary baseline chosen afterwards.
#include <gtest/gtest.h>

#include <algorithm>

#include "verdict/verdict.h"

namespace kf::eval {
namespace {

Verdict timed_correct() {
  Verdict v;
  v.problem = "19_ReLU";
  v.backend = "host";
  v.kind = VerdictKind::correct;
  v.time_ms = 1.0;
  v.ref_time_ms = 2.0;
  v.speedup = 2.0;
  v.baselines["eager"] = {2.0, 2.0, "", 0, false, PeakFraction{2.0, 1.0, 0.1, 1.0, "memory", 0.5, 5, 0.01}};
  v.baselines["compile"] = {std::nullopt, std::nullopt, "torch.compile could not compile the reference: X",
                            3.0,          false,        std::nullopt};
  v.peak = PeakFraction{1.0, 1.0, 0.1, 1.0, "memory", 1.0, 10, 0.02};
  v.reasons.push_back({"note.x", "a note"});
  v.flags = {"cache_hit"};
  v.checks = Checks::from_json({{"timing",
                                 {{"candidate", {{"p10_ms", 0.9}, {"p90_ms", 1.1}}},
                                  {"baseline", {{"p10_ms", 1.9}, {"p90_ms", 2.2}}},
                                  {"baseline_compile", {{"p10_ms", 1.4}, {"p90_ms", 1.6}}}}},
                                {"attribution", "trusted"}});
  return v;
}

TEST(VerdictKinds, NamesRoundTripAndUnknownNamesAreNotParsed) {
  for (auto k : {VerdictKind::correct, VerdictKind::incorrect, VerdictKind::compile_error, VerdictKind::runtime_error,
                 VerdictKind::timeout, VerdictKind::rejected, VerdictKind::harness_error, VerdictKind::no_code})
    EXPECT_EQ(parse_verdict_kind(to_string(k)), k);
  EXPECT_FALSE(parse_verdict_kind("unknown"));
  EXPECT_FALSE(parse_verdict_kind("Correct"));
  EXPECT_EQ(recorded_kind(std::string("correct"), true), VerdictKind::correct);
  EXPECT_EQ(recorded_kind(std::string("correct"), false), VerdictKind::unknown);  // fields disagree
  EXPECT_EQ(recorded_kind(std::string("correct"), std::nullopt), VerdictKind::unknown);
  EXPECT_EQ(recorded_kind(std::string("incorrect"), std::nullopt), VerdictKind::incorrect);
  EXPECT_EQ(recorded_kind(std::string("exploded"), false), VerdictKind::unknown);
  // `correct: true` counts as it always did, with or without a name (the profiler's fixture corpus has none).
  EXPECT_EQ(recorded_kind(std::nullopt, true), VerdictKind::correct);
  EXPECT_EQ(recorded_kind(std::string("incorrect"), true), VerdictKind::correct);
}

TEST(VerdictJson, RoundTripIsExact) {
  const Verdict v = timed_correct();
  const auto j = v.to_json();
  EXPECT_EQ(j["verdict"], "correct");
  EXPECT_EQ(j["correct"], true);
  EXPECT_EQ(j["baselines"]["compile"]["error"], "torch.compile could not compile the reference: X");
  EXPECT_TRUE(j["baselines"]["compile"]["time_ms"].is_null());
  const Verdict back = Verdict::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_TRUE(back.correct());
  EXPECT_DOUBLE_EQ(back.peak->fraction, 1.0);
  EXPECT_DOUBLE_EQ(back.baselines.at("eager").peak->fraction, 0.5);
}

TEST(VerdictJson, FieldsOfALaterKforgeAreKeptAndWrongTypesReadAsAbsent) {
  auto j = timed_correct().to_json();
  j["attested_by"] = {{"who", "a later version"}};
  j["speedup"] = "fast";
  j["flags"] = {"suspicious_speedup", 7};
  j["reasons"].push_back({{"code", 3}});
  const Verdict v = Verdict::from_json(j);
  EXPECT_FALSE(v.speedup);
  EXPECT_EQ(v.flags, std::vector<std::string>{"suspicious_speedup"});
  EXPECT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.to_json()["attested_by"]["who"], "a later version");
  EXPECT_EQ(Verdict::from_json(nlohmann::json::array()).kind, VerdictKind::unknown);
  const Verdict exploded = Verdict::from_json({{"verdict", "exploded"}});
  EXPECT_EQ(exploded.kind, VerdictKind::unknown);
  EXPECT_EQ(exploded.name(), "exploded");
}

TEST(VerdictJson, ARecordedVerdictIsWrittenBackKeyForKey) {
  // An old verdict: no yardsticks, no problem or backend. Read (eager-only baselines for the readers) and
  // written back with the fields it had, a kind this kforge does not know keeping its name.
  const nlohmann::json old{{"verdict", "correct"},
                           {"correct", true},
                           {"speedup", 1.8},
                           {"ref_time_ms", 0.9},
                           {"checks", {{"timing", {{"candidate", {{"p10_ms", 0.48}}}}}}}};
  const Verdict v = Verdict::from_json(old);
  EXPECT_TRUE(v.baselines.count("eager"));
  EXPECT_EQ(v.to_json(), old);
  const nlohmann::json odd{{"verdict", "exploded"}, {"correct", false}, {"later_field", 1}};
  EXPECT_EQ(Verdict::from_json(odd).to_json(), odd);
}

TEST(VerdictJson, NoCodeKeepsItsShortForm) {
  const auto j = Verdict::no_code("no_code_block", "no fenced block").to_json();
  EXPECT_EQ(j["verdict"], "no_code");
  EXPECT_EQ(j["correct"], false);
  EXPECT_EQ(j["reasons"][0]["code"], "no_code.no_code_block");
  EXPECT_EQ(j["reasons"][0]["detail"], "no fenced block");
  EXPECT_FALSE(j.contains("problem"));
  EXPECT_FALSE(j.contains("baselines"));
  EXPECT_TRUE(j["time_ms"].is_null());
  EXPECT_EQ(Verdict::from_json(j).kind, VerdictKind::no_code);
}

TEST(VerdictJson, VerdictsBeforeTheYardsticksReadAsEagerOnly) {
  nlohmann::json old{
      {"verdict", "correct"}, {"correct", true}, {"time_ms", 1.0}, {"ref_time_ms", 3.0}, {"speedup", 3.0}};
  auto o = Verdict::from_json(old);
  EXPECT_EQ(o.baseline, "eager");
  ASSERT_TRUE(o.baselines.count("eager"));
  EXPECT_DOUBLE_EQ(*o.baselines.at("eager").speedup, 3.0);
  EXPECT_FALSE(o.peak.has_value());
}

TEST(VerdictChecks, TimingSpreadsAttributionAndLegacyNames) {
  const auto t = timed_correct().timing_checks();
  ASSERT_TRUE(t.candidate && t.baseline && t.baseline_compile);
  EXPECT_DOUBLE_EQ(t.candidate->p90_ms, 1.1);
  EXPECT_DOUBLE_EQ(t.primary_baseline("compile")->p10_ms, 1.4);
  EXPECT_DOUBLE_EQ(t.primary_baseline("eager")->p10_ms, 1.9);
  EXPECT_FALSE(t.inputs_repeated);
  EXPECT_EQ(timed_correct().attribution(), "trusted");

  Verdict old;
  old.checks = Checks::from_json(
      {{"timing", {{"candidate_events", {{"p10_ms", 1}, {"p90_ms", 2}}}, {"inputs_repeated", true}}}});
  const auto o = old.timing_checks();
  ASSERT_TRUE(o.candidate);
  EXPECT_DOUBLE_EQ(o.candidate->p10_ms, 1);
  EXPECT_TRUE(o.inputs_repeated);
  EXPECT_FALSE(o.baseline);
  old.checks = Checks::from_json({{"timing", {{"candidate", {{"p10_ms", "x"}, {"p90_ms", 2}}}}}});
  EXPECT_FALSE(old.timing_checks().candidate);
}

TEST(VerdictChecks, DecidingReasonIsTheFirstOfTheKindsClass) {
  Verdict v;
  v.kind = VerdictKind::rejected;
  EXPECT_FALSE(v.deciding_reason());
  v.reasons = {{"incorrect.rel_l2", "a"}, {"rejected.trivial_output", "b"}};
  EXPECT_EQ(v.deciding_reason()->code, "rejected.trivial_output");
  v.kind = VerdictKind::timeout;
  EXPECT_EQ(v.deciding_reason()->code, "incorrect.rel_l2");
}

TEST(VerdictBaseline, PrimaryChosenAfterwards) {
  Verdict v = timed_correct();
  v.choose_primary_baseline("compile");  // compile has no time: eager stays, flagged
  EXPECT_EQ(v.baseline, "eager");
  EXPECT_NE(std::find(v.flags.begin(), v.flags.end(), "primary_baseline_unavailable"), v.flags.end());
  v = timed_correct();
  v.baselines["compile"].time_ms = 1.5;
  v.baselines["compile"].speedup = 1.5;
  v.choose_primary_baseline("compile");
  EXPECT_EQ(v.baseline, "compile");
  EXPECT_DOUBLE_EQ(*v.speedup, 1.5);
  EXPECT_DOUBLE_EQ(*v.ref_time_ms, 1.5);
}

TEST(VerdictExitCode, CorrectOtherAndHarness) {
  Verdict v;
  v.kind = VerdictKind::correct;
  EXPECT_EQ(v.exit_code(), 0);
  v.kind = VerdictKind::incorrect;
  EXPECT_EQ(v.exit_code(), 1);
  v.kind = VerdictKind::harness_error;
  EXPECT_EQ(v.exit_code(), 3);
  v.reasons = {{"problem.load", "x"}};
  EXPECT_EQ(v.exit_code(), 2);
}

}  // namespace
}  // namespace kf::eval
