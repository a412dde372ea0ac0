// The judge's decisions on given statistics: label unit.
#include <gtest/gtest.h>

#include "evaluator/evaluator.h"
#include "evaluator/judge.h"
#include "evaluator/runner_session.h"

using namespace kf::eval;

namespace {

OutputStats good() {
  OutputStats s;
  s.numel = 1000;
  s.rel_l2 = 1e-7;
  s.max_abs = 1e-6;
  s.ref_rms = 1;
  return s;
}

bool has(const std::vector<Reason>& r, const std::string& code) {
  for (const auto& x : r)
    if (x.code == code) return true;
  return false;
}

TEST(Judge, AcceptsSmallError) { EXPECT_TRUE(judge_output("out", "float32", good()).empty()); }

TEST(Judge, RelativeL2AboveToleranceIsIncorrect) {
  auto s = good();
  s.rel_l2 = 3e-4;  // TF32-like
  EXPECT_TRUE(has(judge_output("out", "float32", s), "incorrect.rel_l2"));
  EXPECT_TRUE(judge_output("out", "float16", s).empty());
}

TEST(Judge, UnwrittenNanParityElementwise) {
  auto s = good();
  s.unwritten = 997;
  s.nan_inf_mismatch = 997;
  auto r = judge_output("out", "float32", s);
  EXPECT_TRUE(has(r, "incorrect.unwritten"));
  EXPECT_FALSE(has(r, "incorrect.nan_parity"));  // the poison itself is not counted twice
  auto p = good();
  p.nan_inf_mismatch = 3;
  EXPECT_TRUE(has(judge_output("out", "float32", p), "incorrect.nan_parity"));
  auto e = good();
  e.violations = 1;
  e.first_violations = {42};
  auto re = judge_output("out", "float32", e);
  ASSERT_TRUE(has(re, "incorrect.elementwise"));
  EXPECT_NE(re[0].detail.find("42"), std::string::npos);
}

TEST(Judge, IntegersMustMatchExactly) {
  OutputStats s;
  s.numel = 10;
  s.floating = false;
  s.mismatched_exact = 1;
  EXPECT_TRUE(has(judge_output("idx", "int64", s), "incorrect.exact"));
}

TEST(Judge, NonTriviality) {
  OutputStats zeros;
  zeros.numel = 1000;
  zeros.rel_l2 = 1.0;
  zeros.violations = 1000;
  OutputStats constant = zeros;
  constant.rel_l2 = 1e-3;
  std::vector<TrivialStats> t{{"zeros", zeros, 1.0}, {"constant", constant, 1e-3}};
  std::vector<std::string> degenerate;
  auto cand = good();
  EXPECT_TRUE(judge_non_trivial("out", "float32", cand, t, &degenerate).empty());
  cand.rel_l2 = 5e-5;  // within tolerance, but not 100x below the constant's 1e-3
  EXPECT_TRUE(has(judge_non_trivial("out", "float32", cand, t, &degenerate), "rejected.trivial_output"));
  t[0].distance_to_candidate = 0;  // the candidate IS the zeros output
  auto r = judge_non_trivial("out", "float32", good(), t, &degenerate);
  ASSERT_TRUE(has(r, "rejected.trivial_output"));
  EXPECT_NE(r[0].detail.find("'zeros'"), std::string::npos);
  EXPECT_TRUE(degenerate.empty());
}

// A trial on which a trivial output is nearly right (a few elements of a ReLU's non-negative input made
// negative): an exact candidate lies close to it in absolute terms but is not that output.
TEST(Judge, NearlyRightTrivialIsNotTheCandidate) {
  OutputStats passthrough;
  passthrough.numel = 1 << 20;
  passthrough.rel_l2 = 2e-5;
  passthrough.violations = 12;
  std::vector<TrivialStats> t{{"passthrough:x", passthrough, 2e-5}};
  std::vector<std::string> degenerate;
  EXPECT_TRUE(judge_non_trivial("out", "float32", good(), t, &degenerate).empty());
  EXPECT_TRUE(degenerate.empty());
  t[0].distance_to_candidate = 0;  // the passthrough itself
  EXPECT_TRUE(has(judge_non_trivial("out", "float32", good(), t, &degenerate), "rejected.trivial_output"));
}

TEST(Judge, TrivialThatPassesMarksDegenerate) {
  OutputStats zeros;
  zeros.numel = 10;
  zeros.rel_l2 = 0;  // reference is all zeros
  std::vector<TrivialStats> t{{"zeros", zeros, 0}};
  std::vector<std::string> degenerate;
  EXPECT_TRUE(judge_non_trivial("out", "float32", good(), t, &degenerate).empty());
  ASSERT_EQ(degenerate.size(), 1u);
  EXPECT_TRUE(trivial_passes("float32", zeros));
}

TEST(Judge, TolerancesOrderedByPrecision) {
  EXPECT_LT(tolerance_for("float32").rel_l2, tolerance_for("float16").rel_l2);
  EXPECT_LT(tolerance_for("float16").rel_l2, tolerance_for("bfloat16").rel_l2);
  EXPECT_EQ(tolerance_for("int64").rel_l2, 0);
}

TEST(Signature, CDeclaration) {
  Signature s;
  s.problem = "/x/23_Softmax.py";
  s.precision = "fp32";
  s.inputs = {{"x", "float32", {4, 8}, {}}};
  s.outputs = {{"output0", "float32", {4, 8}, {}}};
  std::string d = s.to_c_declaration();
  EXPECT_NE(d.find("23_Softmax"), std::string::npos);
  EXPECT_NE(d.find("inputs[0]  x: KF_FLOAT32 [4, 8]\n"), std::string::npos) << d;
  EXPECT_NE(d.find("num_inputs == 1"), std::string::npos);
  EXPECT_EQ(d.find("varies"), std::string::npos) << d;
}

TEST(Signature, SeedDependentSizesAreNamed) {
  Signature s;
  s.problem = "/x/13_EmbeddingBag.py";
  s.precision = "fp32";
  s.inputs = {{"indices", "int64", {2558}, {0}}, {"offsets", "int64", {65}, {}}};
  s.outputs = {{"output0", "float32", {64, 16}, {}}};
  std::string d = s.to_c_declaration();
  EXPECT_NE(d.find("inputs[0]  indices: KF_INT64 [2558]  (varies between calls: shape[0]"), std::string::npos) << d;
  EXPECT_NE(d.find("kf_tensor.shape[]"), std::string::npos) << d;
  EXPECT_EQ(s.to_json()["inputs"][0]["varying_dims"], nlohmann::json::array({0}));
}

}  // namespace

// Host-side work in a call (allocations, blocked system calls) is timed by the trusted clock but is not on
// the stream: events far below the trusted time are no evidence against the candidate. Events above it are.
TEST(Judge, EventsBelowTheTrustedTimeAreNotHeldAgainstTheCandidate) {
  EXPECT_FALSE(judge_event_disagreement(0.102, 0.0036).has_value());
  auto r = judge_event_disagreement(1.0, 5.0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, "rejected.timer_tampering");
}

TEST(Judge, GpuWorkLeftRunningAfterTheGivenStreamIsUnsynchronized) {
  EXPECT_FALSE(judge_device_tail(0.01, 1.0).has_value());
  auto r = judge_device_tail(5.1, 5.0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, "rejected.unsynchronized_work");
  EXPECT_TRUE(judge_device_tail(0.12, 0.5).has_value());
}

TEST(Judge, APythonRunnersSynchronisationAfterLongCallsIsNotUnsynchronizedWork) {
  // KernelBench's tiled matmul example: 17 ms calls, ~0.2 ms for torch.cuda.synchronize() after them.
  EXPECT_FALSE(judge_device_tail(0.2, 17.3).has_value());
  EXPECT_TRUE(judge_device_tail(3.0, 17.3).has_value());
}

TEST(Judge, ARunnerThatDiesBeforeTheCandidateIsLoadedIsTheHarnessFailure) {
  RunnerEnd e;
  e.kind = RunnerEnd::Kind::crashed;
  e.exit_code = 127;
  e.stderr_tail = "kforge-runner: No such file or directory";
  Verdict before;
  judge_runner_failure(before, e, /*candidate_loaded=*/false, "start-up", "the start-up limit");
  EXPECT_EQ(before.kind, VerdictKind::harness_error);
  EXPECT_TRUE(has(before.reasons, "harness.runner"));
  Verdict after;
  judge_runner_failure(after, e, /*candidate_loaded=*/true, "trial 0", "the per-call limit");
  EXPECT_EQ(after.kind, VerdictKind::runtime_error);
  EXPECT_TRUE(has(after.reasons, "runtime_error.exit"));
}

// Precision against float64: the ratio to the float32 reference's own error, with a floor for outputs float32
// computes exactly; the measured honest orders (<= 6.3) pass, operand rounding at K = 512 (15.5) fails.
TEST(Judge, PrecisionRatioHasAFloorAndABound) {
  EXPECT_DOUBLE_EQ(precision_ratio({2e-6, 1e-7}), 2.0);    // below the floor: the floor divides
  EXPECT_DOUBLE_EQ(precision_ratio({4e-6, 2e-6}), 2.0);    // above it: the reference's own error does
  EXPECT_FALSE(judge_precision("out", {6.3e-6, 6.8e-8}));  // sequential float32 sums over 65536 terms
  EXPECT_FALSE(judge_precision("out", {0.0, 0.0}));        // exact
  auto r = judge_precision("out", {1.55e-5, 1.21e-7});     // fp16 operands, K = 512
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, "incorrect.reduced_precision");
  EXPECT_NE(r->detail.find("15.5x"), std::string::npos) << r->detail;
  EXPECT_TRUE(judge_precision("out", {4e-5, 1e-6}));  // 40x the reference's own
}

// The one finishing rule: rejected before incorrect before correct, from the reasons of a verdict still correct;
// a verdict decided where it happened (a runner's failure, a harness error) stays. judged_verdict tells a phase
// what finalize would make of the verdict without finishing it.
TEST(Judge, FinishingRuleRanksReasonsAndKeepsDecidedVerdicts) {
  Verdict v;
  v.kind = VerdictKind::correct;
  EXPECT_EQ(judged_verdict(v), VerdictKind::correct);
  v.reasons.push_back({"incorrect.rel_l2", ""});
  EXPECT_EQ(judged_verdict(v), VerdictKind::incorrect);
  v.reasons.push_back({"rejected.below_bandwidth_floor", ""});
  EXPECT_EQ(judged_verdict(v), VerdictKind::rejected);
  EXPECT_EQ(v.kind, VerdictKind::correct);  // judged_verdict leaves it as it is
  finalize(v);
  EXPECT_EQ(v.kind, VerdictKind::rejected);
  EXPECT_FALSE(v.correct());
  finalize(v);  // finishing twice changes nothing
  EXPECT_EQ(v.kind, VerdictKind::rejected);

  Verdict ok;
  ok.kind = VerdictKind::correct;
  finalize(ok);
  EXPECT_TRUE(ok.correct());

  Verdict timeout;
  timeout.kind = VerdictKind::timeout;
  timeout.reasons.push_back({"rejected.vendor_library", ""});
  EXPECT_EQ(judged_verdict(timeout), VerdictKind::timeout);

  Verdict h;
  h.kind = VerdictKind::correct;
  h.reasons.push_back({"rejected.vendor_library", ""});
  judge_harness_failure(h, {"harness.oracle", "the oracle died"});
  finalize(h);
  EXPECT_EQ(h.kind, VerdictKind::harness_error);
  EXPECT_FALSE(h.correct());
  ASSERT_EQ(h.reasons.size(), 2u);
  EXPECT_EQ(h.reasons.back().code, "harness.oracle");
}
