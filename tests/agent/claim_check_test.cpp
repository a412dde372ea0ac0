// What kforge's verdict says about an imported claim (agent/claims/claim_check.h), and the one "supported" rule
// it shares with the reverify of campaign kernels (agent/claims/reverify_rule.h).
#include <array>

#include <gtest/gtest.h>

#include "agent/claims/claim_check.h"
#include "agent/claims/reverify_rule.h"

namespace kf::agent {
namespace {

// A correct verdict with speedup baseline/candidate median and the interval [b10 / c90, b90 / c10].
// Verdicts as a corpus records them, read back through the verdict's owner.
eval::Verdict correct_verdict(double speedup, std::optional<std::array<double, 4>> spread) {
  nlohmann::json v = {
      {"verdict", "correct"}, {"correct", true}, {"speedup", speedup}, {"reasons", nlohmann::json::array()}};
  if (spread) {
    const auto& s = *spread;  // candidate p10, p90, baseline p10, p90
    v["checks"]["timing"] = {{"candidate", {{"p10_ms", s[0]}, {"p90_ms", s[1]}}},
                             {"baseline", {{"p10_ms", s[2]}, {"p90_ms", s[3]}}}};
  }
  return eval::Verdict::from_json(v);
}

eval::Verdict failed_verdict(const std::string& verdict, const std::string& code) {
  return eval::Verdict::from_json(
      {{"verdict", verdict},
       {"correct", false},
       {"reasons", nlohmann::json::array({{{"code", code}, {"detail", "what " + code + " found"}}})}});
}

corpus::Claim claim(std::optional<double> speedup, bool correct = true) {
  corpus::Claim c;
  c.compiled = true;
  c.correct = correct;
  c.speedup = speedup;
  return c;
}

TEST(SpeedupSupported, OverlapOrTheSameSideOfOne) {
  const SpeedupFigure measured_fast{1.25, SpeedupInterval{1.2, 1.3}};
  const SpeedupFigure measured_slow{0.95, SpeedupInterval{0.93, 0.97}};
  const SpeedupFigure measured_even{1.0, SpeedupInterval{0.95, 1.05}};
  EXPECT_TRUE(speedup_supported({1.25, std::nullopt}, measured_fast));  // within
  EXPECT_TRUE(speedup_supported({2.1, std::nullopt}, measured_fast));   // both above 1.0
  EXPECT_FALSE(speedup_supported({2.1, std::nullopt}, measured_slow));  // the example
  EXPECT_TRUE(speedup_supported({0.5, std::nullopt}, measured_slow));   // both below 1.0
  EXPECT_TRUE(speedup_supported({1.02, std::nullopt}, measured_even));  // within an interval across 1.0
  EXPECT_FALSE(speedup_supported({1.5, std::nullopt}, measured_even));  // neither
  EXPECT_FALSE(speedup_supported({1.0, std::nullopt}, measured_fast));  // 1.0 is on no side
  // Claimed intervals (campaign kernels): overlap, or both entirely on one side.
  EXPECT_TRUE(speedup_supported({1.5, SpeedupInterval{1.4, 1.6}}, {2.0, SpeedupInterval{1.9, 2.1}}));
  EXPECT_FALSE(speedup_supported({1.1, SpeedupInterval{0.9, 1.3}}, {2.0, SpeedupInterval{1.9, 2.1}}));
  EXPECT_TRUE(speedup_supported({1.1, SpeedupInterval{0.9, 1.3}}, {1.25, SpeedupInterval{1.2, 1.3}}));
  // Without a measured spread: within 10% of each other.
  EXPECT_TRUE(speedup_supported({1.0, std::nullopt}, {1.05, std::nullopt}));
  EXPECT_FALSE(speedup_supported({0.8, std::nullopt}, {1.05, std::nullopt}));
}

TEST(ReverifyStatus, CampaignKernelsUseTheSameRule) {
  auto claimed = correct_verdict(1.5, std::array<double, 4>{1.0, 1.0, 1.4, 1.6});
  EXPECT_EQ(reverify_status(claimed, correct_verdict(1.55, std::array<double, 4>{1.0, 1.0, 1.5, 1.6})), "holds");
  EXPECT_EQ(reverify_status(claimed, correct_verdict(2.0, std::array<double, 4>{1.0, 1.0, 1.9, 2.1})), "holds");
  EXPECT_EQ(reverify_status(claimed, correct_verdict(0.9, std::array<double, 4>{1.0, 1.0, 0.85, 0.95})),
            "not_reproduced");
  EXPECT_EQ(reverify_status(claimed, failed_verdict("incorrect", "incorrect.rel_l2")), "now_incorrect");
  EXPECT_EQ(reverify_status(claimed, correct_verdict(0.2, std::nullopt)), "not_reproduced");
}

TEST(CheckClaim, CorrectSolutions) {
  auto measured = correct_verdict(1.25, std::array<double, 4>{1.0, 1.0, 1.2, 1.3});
  EXPECT_EQ(check_claim(claim(1.25), measured).status, "holds");
  EXPECT_EQ(check_claim(claim(2.1), measured).status, "holds");  // faster, as claimed
  EXPECT_EQ(check_claim(claim(std::nullopt), measured).status, "holds");
  auto slow = correct_verdict(0.95, std::array<double, 4>{1.0, 1.0, 0.93, 0.97});
  auto c = check_claim(claim(2.1), slow);
  EXPECT_EQ(c.status, "not_reproduced");
  EXPECT_EQ(c.detail, "claimed 2.10x over eager, measured 0.95x [0.93, 0.97]");
  EXPECT_TRUE(c.reason.empty());
  EXPECT_EQ(check_claim(claim(std::nullopt, false), slow).status, "now_correct");
  corpus::Claim unknown;  // no eval_results entry
  EXPECT_EQ(check_claim(unknown, measured).status, "now_correct");
}

TEST(CheckClaim, FailuresAndHackClasses) {
  struct Case {
    std::string verdict, code, status, hack;
  };
  for (const Case& k : std::vector<Case>{
           {"rejected", "rejected.torch_fallback", "rejected", "torch_fallback"},
           {"rejected", "rejected.trivial_output", "rejected", "trivial_output"},
           {"rejected", "rejected.deferred_work", "rejected", "deferred_work"},
           {"rejected", "rejected.input_modified", "rejected", "input_modified"},
           {"rejected", "rejected.timer_tampering", "rejected", "timer_tampering"},
           {"rejected", "rejected.below_bandwidth_floor", "rejected", "impossible_time"},
           {"rejected", "rejected.buffer_tampered", "rejected", "harness_tampering"},
           {"rejected", "rejected.vendor_library", "rejected", "vendor_library"},
           {"rejected", "rejected.something_new", "rejected", "something_new"},
           {"incorrect", "incorrect.reduced_precision", "rejected", "reduced_precision"},
           {"incorrect", "incorrect.rel_l2", "now_incorrect", ""},
           {"incorrect", "incorrect.unwritten", "now_incorrect", ""},
           {"compile_error", "compile_error", "fails", ""},
           {"compile_error", "compile_error.missing_package", "fails", ""},
           {"runtime_error", "runtime_error.signal", "fails", ""},
           {"timeout", "timeout", "fails", ""},
           {"harness_error", "harness.oracle", "harness_error", ""},
       }) {
    for (bool claimed_correct : {true, false}) {
      auto c = check_claim(claim(2.0, claimed_correct), failed_verdict(k.verdict, k.code));
      EXPECT_EQ(c.status, k.status) << k.code;
      EXPECT_EQ(c.reason, k.code) << k.code;
      EXPECT_EQ(c.hack_class, k.hack) << k.code;
      EXPECT_EQ(c.detail, "what " + k.code + " found");
    }
  }
  // The deciding reason is the first of the verdict's class, whatever precedes it.
  auto v = failed_verdict("rejected", "incorrect.rel_l2");
  v.reasons.push_back({"rejected.trivial_output", "zeros"});
  EXPECT_EQ(check_claim(claim(2.0), v).hack_class, "trivial_output");
  EXPECT_EQ(check_claim(claim(2.0), eval::Verdict::from_json(nlohmann::json("garbage"))).status, "harness_error");
}

TEST(CheckClaim, ComparedOverTheSameBaselineKind) {
  corpus::Claim c = claim(3.0);
  c.baseline_kind = "eager";
  c.speedups = {{"eager", 3.0, std::nullopt}, {"torch_compile", 1.2, std::nullopt}, {"cuda_graph", 0.8, std::nullopt}};
  const auto v = correct_verdict(2.9, std::array<double, 4>{1.0, 1.1, 3.0, 3.1});
  ClaimCheck r = check_claim(c, v);
  EXPECT_EQ(r.status, "holds");
  EXPECT_EQ(r.baseline_kind, "eager");
  ASSERT_EQ(r.baselines.size(), 3u);
  EXPECT_EQ(r.baselines[0].outcome, "supported");
  // kforge measures no torch.compile or CUDA-graph baseline (yet): listed, not judged.
  EXPECT_EQ(r.baselines[1].outcome, "not_measured");
  EXPECT_EQ(r.baselines[2].outcome, "not_measured");

  // A claim over torch.compile only says nothing about eager: correctness alone decides.
  corpus::Claim compile_only = claim(std::nullopt);
  compile_only.speedups = {{"torch_compile", 5.0, std::nullopt}};
  r = check_claim(compile_only, correct_verdict(0.5, std::nullopt));
  EXPECT_EQ(r.status, "holds");
  EXPECT_NE(r.detail.find("claims no speedup over eager"), std::string::npos) << r.detail;

  // Records written before baseline kinds were kept: their speedup is over eager.
  EXPECT_EQ(claim(2.0).speedup_over("eager"), 2.0);
  EXPECT_FALSE(claim(2.0).speedup_over("torch_compile"));
}

TEST(CheckClaim, OtherHardwareIsJudgedOnKforgesInterval) {
  corpus::Claim c = claim(20.0);
  c.hardware = "H100";
  // 20x claimed on an H100, 2x [1.8, 2.2] measured on an H200: the figure differs, the side of 1.0 does not.
  const auto fast = correct_verdict(2.0, std::array<double, 4>{1.0, 1.1, 2.0, 2.2});
  ClaimCheck r = check_claim(c, fast, Measurement{"eager", "NVIDIA H200"});
  EXPECT_TRUE(r.hardware_differs);
  EXPECT_EQ(r.status, "holds");
  EXPECT_NE(r.detail.find("hardware_differs"), std::string::npos);
  // A claimed 1.1x and a measured 1.05x [0.95, 1.2]: on the same model the intervals overlap and the claim
  // holds; elsewhere only kforge's interval counts, and it reaches below 1.0.
  corpus::Claim small = claim(1.1);
  small.hardware = "H100";
  const auto unsure = correct_verdict(1.05, std::array<double, 4>{1.0, 1.2, 0.95, 1.2});
  r = check_claim(small, unsure, Measurement{"eager", "NVIDIA H100 80GB HBM3"});
  EXPECT_FALSE(r.hardware_differs);
  EXPECT_EQ(r.status, "holds");
  r = check_claim(small, unsure, Measurement{"eager", "NVIDIA H200"});
  EXPECT_TRUE(r.hardware_differs);
  EXPECT_EQ(r.status, "not_reproduced");
  EXPECT_NE(r.detail.find("on NVIDIA H200"), std::string::npos) << r.detail;
  // Unknown hardware on either side: no hardware_differs.
  EXPECT_FALSE(check_claim(c, fast, Measurement{"eager", ""}).hardware_differs);
}

TEST(HackClass, OnlyForHacks) {
  EXPECT_EQ(hack_class("rejected.torch_fallback"), "torch_fallback");
  EXPECT_EQ(hack_class("incorrect.reduced_precision"), "reduced_precision");
  EXPECT_EQ(hack_class("incorrect.rel_l2"), "");
  EXPECT_EQ(hack_class("compile_error.missing_package"), "");
  EXPECT_EQ(hack_class("rejected."), "");
}

}  // namespace
}  // namespace kf::agent
