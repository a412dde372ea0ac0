// The whole pipeline on the host backend (CPU torch, g++ candidates, real processes): label integration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <vector>

#include "core/files.h"
#include "evaluator/evaluator.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace kf::eval;
using namespace kf::eval::test;

namespace {

class HostEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    python_ = python_with_torch();
    if (python_.empty()) return;
    EvaluatorOptions o = options();
    auto e = Evaluator::create(o);
    ASSERT_TRUE(e.ok()) << e.error().message;
    eval_ = std::move(e.value()).release();
  }
  static void TearDownTestSuite() {
    delete eval_;
    eval_ = nullptr;
  }
  static EvaluatorOptions options() {
    EvaluatorOptions o;
    o.backend = Backend::host;
    o.python = python_;
    o.cache_dir = std::string(KFORGE_TEST_BINARY_DIR) + "/evaluator-test-cache";
    o.runner_path = runner_path();
    o.min_rounds = 3;
    o.max_rounds = 5;
    o.warmup_rounds = 1;
    o.timing_budget_ms = 1;
    // The default lifetime: a loaded 2-core machine once took an honest evaluation past 30 s. Hanging candidates
    // meet the per-call limit long before; the lifetime tests set their own.
    o.runner_timeout_s = 120;
    return o;
  }
  void SetUp() override { ASSERT_FALSE(python_.empty()) << kNoTorchAdvice; }
  Verdict run(const std::string& prob, const std::string& cand) {
    return eval_->evaluate_file(problem(prob), host_candidate(cand));
  }
  static inline std::string python_;
  static inline Evaluator* eval_ = nullptr;
};

TEST_F(HostEval, HonestCandidatePasses) {
  Verdict v = run("scale_add.py", "scale_add_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  EXPECT_TRUE(v.correct());
  EXPECT_EQ(v.exit_code(), 0);
  ASSERT_TRUE(v.time_ms.has_value());
  ASSERT_TRUE(v.ref_time_ms.has_value());
  EXPECT_TRUE(v.speedup.has_value());
  // At least 3 trials plus the re-validation after timing, with different distributions.
  ASSERT_GE(checks_of(v)["trials"].size(), 4u);
  EXPECT_EQ(checks_of(v)["trials"][0]["variant"], "own");
  EXPECT_NE(checks_of(v)["trials"][1]["variant"], "own");
  EXPECT_EQ(checks_of(v)["runner_tree_empty"], true);
  // The time is the trusted side's: rounds of calls timed by the supervisor, with their noise and round trip.
  const auto& t = checks_of(v)["timing"]["candidate"];
  EXPECT_GE(t["rounds"].get<int>(), 1);
  EXPECT_GE(t["calls_per_round"].get<int>(), 1);
  EXPECT_EQ(t["calls"].get<int>(), t["rounds"].get<int>() * t["calls_per_round"].get<int>());
  EXPECT_DOUBLE_EQ(t["median_ms"].get<double>(), *v.time_ms);
  EXPECT_GT(t["channel_rtt_ms"].get<double>(), 0);
  // The harness's own cost of a round, measured before the candidate was loaded and taken off every round.
  EXPECT_GT(t["round_overhead_ms"].get<double>(), 0);
  ASSERT_TRUE(t["calibration_log"].is_array());
  // 2 warm-up rounds, then 15 to 45 samples (more while their lower quartile sits far above the smallest):
  // the overhead is their lower quartile.
  const auto& cal = t["calibration_log"];
  ASSERT_GE(cal.size(), 17u);
  ASSERT_LE(cal.size(), 47u);
  std::vector<double> samples;
  for (size_t i = 2; i < cal.size(); ++i) samples.push_back(cal[i][0].get<double>() - cal[i][1].get<double>());
  std::sort(samples.begin(), samples.end());
  EXPECT_DOUBLE_EQ(t["round_overhead_ms"].get<double>(), samples[samples.size() / 4]);
  // Per timed round: trusted ms, event ms, checked, the oracle's prepare and check ms.
  ASSERT_FALSE(t["rounds_log"].empty());
  EXPECT_EQ(t["rounds_log"][0].size(), 5u);
  // One call's bytes (x, y and the output, 64 x 32 floats each), not every timing slot's.
  EXPECT_EQ(checks_of(v)["bytes_moved"].get<int64_t>(), 3 * 64 * 32 * 4);
  EXPECT_TRUE(t["noise"].is_number());
  EXPECT_FALSE(t["stop"].get<std::string>().empty());
  EXPECT_TRUE(checks_of(v)["timing"]["baseline"]["noise"].is_number());
  EXPECT_EQ(checks_of(v)["runner_frozen_between_rounds"], true);
  auto j = v.to_json();
  for (const char* k : {"problem", "backend", "verdict", "correct", "reasons", "checks", "time_ms", "ref_time_ms",
                        "speedup", "flags", "compile_s", "eval_s"})
    EXPECT_TRUE(j.contains(k)) << k;
}

// Outputs larger than round_check_sample are checked in timed rounds at random positions: an honest candidate
// still passes, and one that writes a cheaper wrong answer once the trials are over is caught there.
TEST_F(HostEval, SampledRoundChecksPassHonestAndCatchWrongTimedCalls) {
  EvaluatorOptions o = options();
  o.round_check_sample = 64;  // of scale_add's 2048 output elements
  o.check_fraction = 1;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  Verdict honest = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  EXPECT_EQ(honest.kind, VerdictKind::correct) << reasons_text(honest);
  EXPECT_GT(checks_of(honest)["timing"]["candidate"]["checked_slots"].get<int>(), 0);
  Verdict cheat = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_wrong_when_timed.cpp"));
  // A copy of x: wrong, and at the sampled positions still recognised as the trivial pass-through of x.
  EXPECT_EQ(cheat.kind, VerdictKind::rejected) << reasons_text(cheat);
  const std::string why = reasons_text(cheat);
  EXPECT_NE(why.find("at 64 random positions per output"), std::string::npos) << why;
  EXPECT_NE(why.find("passthrough:x"), std::string::npos) << why;
  EXPECT_NE(why.find("incorrect.rel_l2"), std::string::npos) << why;
}

// A checked slot's inputs are drawn again from its seed; where get_inputs() does not repeat for a seed, the
// oracle keeps copies instead, and both paths judge the honest candidate correct and the timed-call cheat not.
TEST_F(HostEval, TimedChecksWorkWithAndWithoutRepeatableInputs) {
  EvaluatorOptions o = options();
  o.check_fraction = 1;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  for (const char* file : {"scale_add.py", "scale_add_unrepeatable_inputs.py"}) {
    SCOPED_TRACE(file);
    const bool repeatable = std::string(file) == "scale_add.py";
    Verdict honest = (*e)->evaluate_file(problem(file), host_candidate("scale_add_honest.cpp"));
    EXPECT_EQ(honest.kind, VerdictKind::correct) << reasons_text(honest);
    EXPECT_EQ(checks_of(honest)["timing"]["repeatable_inputs"].get<bool>(), repeatable);
    EXPECT_GT(checks_of(honest)["timing"]["candidate"]["checked_slots"].get<int>(), 0);
    Verdict cheat = (*e)->evaluate_file(problem(file), host_candidate("scale_add_wrong_when_timed.cpp"));
    EXPECT_EQ(cheat.kind, VerdictKind::rejected) << reasons_text(cheat);
    EXPECT_NE(reasons_text(cheat).find("timed round"), std::string::npos) << reasons_text(cheat);
  }
}

// Rounds are sized from the reference for the calibration and the baseline, and from the candidate's trial
// calls for its own rounds: a candidate far faster than a 2 ms reference fills every slot allocated.
TEST_F(HostEval, AFastCandidateGetsMoreCallsPerRoundThanTheReference) {
  Verdict v = run("scale_add_slow_reference.py", "scale_add_honest.cpp");
  ASSERT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  const auto& t = checks_of(v)["timing"];
  const int reference_calls = t["baseline"]["calls_per_round"].get<int>();
  const int slots = t["slots"].get<int>();
  EXPECT_GE(reference_calls, 1);
  EXPECT_LE(reference_calls, static_cast<int>(std::ceil(options().round_target_ms / 2)));  // calls of >= 2 ms
  EXPECT_GT(slots, reference_calls);
  EXPECT_EQ(t["candidate"]["calls_per_round"].get<int>(), slots) << t.dump();
}

TEST_F(HostEval, StateDictEntriesAreInputs) {
  Verdict v = run("linear.py", "linear_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  auto sig = eval_->signature(problem("linear.py"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  ASSERT_EQ(sig->inputs.size(), 3u);
  EXPECT_EQ(sig->inputs[0].name, "x");
  EXPECT_EQ(sig->inputs[1].name, "fc.weight");
  EXPECT_EQ(sig->inputs[2].name, "fc.bias");
  EXPECT_EQ(sig->outputs[0].shape, (std::vector<int64_t>{8, 4}));
  std::string decl = sig->to_c_declaration();
  EXPECT_NE(decl.find("fc.weight: KF_FLOAT32 [4, 16]"), std::string::npos) << decl;
  EXPECT_NE(decl.find("int kf_forward("), std::string::npos);
}

TEST_F(HostEval, SecondCompileIsACacheHit) {
  Compiled a = eval_->compile(host_candidate("scale_add_honest.cpp"));
  Compiled b = eval_->compile(host_candidate("scale_add_honest.cpp"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b.cache_hit);
  EXPECT_EQ(a.library_path, b.library_path);
}

TEST_F(HostEval, CompileErrorKeepsFirstErrorLines) {
  Verdict v = run("scale_add.py", "compile_error.cpp");
  EXPECT_EQ(v.kind, VerdictKind::compile_error);
  EXPECT_EQ(v.exit_code(), 1);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_NE(v.reasons[0].detail.find("undeclared_identifier_here"), std::string::npos) << v.reasons[0].detail;
  EXPECT_NE(v.compiler_output.find("error"), std::string::npos);
}

TEST_F(HostEval, ZerosOnTinyReferenceAreRejected) {
  Verdict ok = run("tiny_ref.py", "tiny_ref_honest.cpp");
  EXPECT_EQ(ok.kind, VerdictKind::correct) << reasons_text(ok);
  Verdict v = run("tiny_ref.py", "tiny_ref_zeros.cpp");
  EXPECT_FALSE(v.correct());
  EXPECT_EQ(v.kind, VerdictKind::rejected) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "rejected.trivial_output")) << reasons_text(v);
  EXPECT_NE(reasons_text(v).find("'zeros'"), std::string::npos) << reasons_text(v);
}

TEST_F(HostEval, TrivialStatsShowAllcloseBlindSpot) {
  auto r = eval_->trivial_stats(problem("tiny_ref.py"), 0, {1e-2, 1e-5});
  ASSERT_TRUE(r.ok()) << r.error().message;
  bool found = false;
  for (const auto& t : *r) {
    if (t.trivial != "zeros") continue;
    found = true;
    EXPECT_FALSE(t.judge_passes);
    ASSERT_EQ(t.allclose.size(), 2u);
    EXPECT_TRUE(t.allclose[0].second);  // allclose(atol=1e-2) accepts zeros here
    EXPECT_FALSE(t.allclose[1].second);
    EXPECT_NEAR(t.stats.rel_l2, 1.0, 1e-9);
  }
  EXPECT_TRUE(found);
}

// The number of ids depends on the seed: every trial and the timing round get their own shapes, the honest
// candidate (which checks offsets[-1] == len(indices) and returns an error otherwise) sees them right.
TEST_F(HostEval, SeedDependentShapesAreJudgedPerTrial) {
  auto sig = eval_->signature(problem("embedding_bag_random_lengths.py"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  ASSERT_EQ(sig->inputs.size(), 3u);
  EXPECT_EQ(sig->inputs[0].varying_dims, std::vector<int>{0});
  EXPECT_TRUE(sig->inputs[1].varying_dims.empty());
  EXPECT_TRUE(sig->outputs[0].varying_dims.empty());
  EXPECT_NE(sig->to_c_declaration().find("varies between calls"), std::string::npos);

  Verdict v = run("embedding_bag_random_lengths.py", "embedding_bag_random_lengths_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  ASSERT_GE(checks_of(v)["trials"].size(), 5u);  // 3 trials, re-validation after timing, sparse re-validation
  std::set<int64_t> lengths;
  for (const auto& t : checks_of(v)["trials"]) lengths.insert(t["shapes"]["inputs"][0][0].get<int64_t>());
  EXPECT_GE(lengths.size(), 3u) << checks_of(v)["trials"].dump();
}

// Timed rounds of a problem whose shapes depend on the seed keep a trial's shapes with new values: the ids are
// permuted afresh in every round, only the sorted offsets (tied to the ids' count) repeat.
TEST_F(HostEval, SeedDependentShapesGetFreshValuesInTimedRounds) {
  Verdict v = run("embedding_bag_random_lengths.py", "embedding_bag_random_lengths_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  EXPECT_EQ(checks_of(v)["timing"]["inputs_repeated"], false);
  EXPECT_EQ(checks_of(v)["timing"]["repeated_inputs"], nlohmann::json::array({"offsets"}));
}

// A problem whose get_inputs() ignores the seed cannot give timed rounds fresh inputs: the verdict says so.
TEST_F(HostEval, InputsThatIgnoreTheSeedAreReportedRepeated) {
  Verdict v = run("scale_add_constant_inputs.py", "scale_add_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  EXPECT_EQ(checks_of(v)["timing"]["inputs_repeated"], true);
  EXPECT_EQ(checks_of(v)["timing"]["repeated_inputs"], nlohmann::json::array({"x", "y"}));
  v = run("scale_add.py", "scale_add_honest.cpp");
  EXPECT_EQ(checks_of(v)["timing"]["inputs_repeated"], false);
  EXPECT_TRUE(checks_of(v)["timing"]["repeated_inputs"].empty());
}

// Trial seeds are drawn per evaluation (recorded), so no trial can be recognised by regenerating its inputs;
// a given seed reruns the same trials exactly.
TEST_F(HostEval, TrialSeedsAreDrawnPerEvaluationUnlessGiven) {
  auto seeds_of = [](const Verdict& v) {
    std::vector<nlohmann::json> seeds;
    for (const auto& t : checks_of(v)["trials"]) seeds.push_back(t["seed"]);
    return seeds;
  };
  Verdict a = run("scale_add.py", "scale_add_honest.cpp");
  Verdict b = run("scale_add.py", "scale_add_honest.cpp");
  ASSERT_TRUE(checks_of(a)["seed"].is_number_unsigned()) << checks_of(a).dump();
  EXPECT_NE(checks_of(a)["seed"], checks_of(b)["seed"]);
  EXPECT_EQ(checks_of(a)["trials"][0]["seed"], checks_of(a)["seed"]);
  EXPECT_NE(seeds_of(a), seeds_of(b));

  EvaluatorOptions o = options();
  o.seed = 1234;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  Verdict c = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  Verdict d = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  EXPECT_EQ(checks_of(c)["seed"], 1234u);
  EXPECT_EQ(seeds_of(c), seeds_of(d));
  ASSERT_EQ(checks_of(c)["trials"].size(), checks_of(d)["trials"].size());
  for (size_t i = 0; i < checks_of(c)["trials"].size(); ++i)
    EXPECT_EQ(checks_of(c)["trials"][i]["outputs"][0]["ref_rms"], checks_of(d)["trials"][i]["outputs"][0]["ref_rms"])
        << i;
}

// Precision on the problem's own inputs: every checked trial compares the candidate with a float64 reference
// beside the float32 reference's own error. An honest float32 kernel passes with a small ratio.
TEST_F(HostEval, PrecisionIsJudgedOnEveryTrialAgainstFloat64) {
  Verdict v = run("linear.py", "linear_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  int judged = 0;
  for (const auto& t : checks_of(v)["trials"]) {
    if (!t.contains("outputs")) continue;
    const auto& p = t["outputs"][0]["precision"];
    ASSERT_TRUE(p.is_object()) << t.dump();
    EXPECT_LE(p["ratio"].get<double>(), kPrecisionRatioBound) << t.dump();
    EXPECT_GE(p["ref_error"].get<double>(), 0.0);
    ++judged;
  }
  EXPECT_GE(judged, 5);
}

TEST_F(HostEval, KernelbenchTrialsUseTheProblemsOwnInputs) {
  auto a = eval_->kernelbench_trivial_stats(problem("tiny_ref.py"), 0, 5, {1e-2});
  auto b = eval_->kernelbench_trivial_stats(problem("tiny_ref.py"), 4, 5, {1e-2});
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_FALSE(a->empty());
  EXPECT_EQ(a->front().trivial, "zeros");
  EXPECT_TRUE(a->front().allclose[0].second);
  EXPECT_NE(a->front().stats.ref_rms, b->front().stats.ref_rms);  // different KernelBench seeds
}

TEST_F(HostEval, ConstantIsRejected) {
  Verdict v = run("scale_add.py", "scale_add_constant.cpp");
  EXPECT_EQ(v.kind, VerdictKind::rejected) << reasons_text(v);
  EXPECT_NE(reasons_text(v).find("'constant'"), std::string::npos) << reasons_text(v);
}

TEST_F(HostEval, PassthroughIsRejected) {
  Verdict v = run("scale_add.py", "scale_add_passthrough.cpp");
  EXPECT_EQ(v.kind, VerdictKind::rejected) << reasons_text(v);
  EXPECT_NE(reasons_text(v).find("'passthrough:x'"), std::string::npos) << reasons_text(v);
}

// The own inputs make "input passed through" correct (the problem is degenerate there): an honest kernel
// still passes and a real passthrough is still caught by the other input variants. (The near-miss that made
// the judge reject an honest ReLU at KernelBench's size is covered by Judge.NearlyRightTrivialIsNotTheCandidate.)
TEST_F(HostEval, HonestReluOnNonNegativeInputsPasses) {
  Verdict v = run("relu_positive.py", "relu_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  Verdict cheat = run("relu_positive.py", "relu_passthrough.cpp");
  EXPECT_NE(cheat.kind, VerdictKind::correct) << reasons_text(cheat);
}

TEST_F(HostEval, PartialWriteIsRejected) {
  Verdict v = run("scale_add.py", "scale_add_partial.cpp");
  EXPECT_FALSE(v.correct());
  EXPECT_TRUE(has_reason(v, "incorrect.unwritten")) << reasons_text(v);
}

// One wrong element of 2048 is found and located on either comparison path: finite everywhere (differences in
// float32, sums in float64) and with a NaN (the float64 path with the NaN/Inf parity check).
TEST_F(HostEval, OneWrongElementIsFoundOnEitherComparisonPath) {
  Verdict off = run("scale_add.py", "scale_add_one_off.cpp");
  EXPECT_FALSE(off.correct()) << reasons_text(off);
  EXPECT_TRUE(has_reason(off, "incorrect.elementwise")) << reasons_text(off);
  EXPECT_NE(reasons_text(off).find("first at flat index 100"), std::string::npos) << reasons_text(off);
  const auto& out = checks_of(off)["trials"][0]["outputs"][0];
  EXPECT_EQ(out["violations"].get<int64_t>(), 1);
  EXPECT_NEAR(out["max_abs"].get<double>(), 1.0, 1e-6);
  Verdict nan = run("scale_add.py", "scale_add_one_nan.cpp");
  EXPECT_FALSE(nan.correct()) << reasons_text(nan);
  EXPECT_TRUE(has_reason(nan, "incorrect.nan_parity")) << reasons_text(nan);
  EXPECT_EQ(checks_of(nan)["trials"][0]["outputs"][0]["nan_inf_mismatch"].get<int64_t>(), 1);
}

TEST_F(HostEval, InputModificationIsRejected) {
  Verdict v = run("scale_add.py", "scale_add_modifies_input.cpp");
  EXPECT_EQ(v.kind, VerdictKind::rejected) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "rejected.input_modified")) << reasons_text(v);
  EXPECT_NE(reasons_text(v).find("'y'"), std::string::npos);
}

TEST_F(HostEval, CrashIsARuntimeErrorNamingTheSignal) {
  Verdict v = run("scale_add.py", "crash.cpp");
  EXPECT_EQ(v.kind, VerdictKind::runtime_error) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "runtime_error.signal"));
  EXPECT_NE(reasons_text(v).find("SIGSEGV"), std::string::npos) << reasons_text(v);
  EXPECT_EQ(v.exit_code(), 1);
}

TEST_F(HostEval, NonZeroReturnIsARuntimeError) {
  Verdict v = run("scale_add.py", "returns_error.cpp");
  EXPECT_EQ(v.kind, VerdictKind::runtime_error) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "runtime_error.return_code"));
}

TEST_F(HostEval, BrokenReferenceIsBadInput) {
  Verdict v = run("reference_raises.py", "scale_add_honest.cpp");
  EXPECT_EQ(v.kind, VerdictKind::harness_error);
  EXPECT_EQ(v.exit_code(), 2);
  EXPECT_NE(reasons_text(v).find("reference_raises.py"), std::string::npos) << reasons_text(v);
  EXPECT_NE(reasons_text(v).find("broken on purpose"), std::string::npos) << reasons_text(v);
  Verdict missing = run("does_not_exist.py", "scale_add_honest.cpp");
  EXPECT_EQ(missing.exit_code(), 2) << reasons_text(missing);
}

TEST_F(HostEval, WrongCandidateKindIsBadUsage) {
  Verdict v = eval_->evaluate_file(problem("scale_add.py"), src("tests/evaluator/cuda/relu.cu"));
  EXPECT_EQ(v.exit_code(), 2) << reasons_text(v);
}

TEST_F(HostEval, EndlessLoopTimesOutAndLeavesNothing) {
  EvaluatorOptions o = options();
  o.runner_timeout_s = 3;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok());
  Verdict v = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("endless.cpp"));
  EXPECT_EQ(v.kind, VerdictKind::timeout) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "timeout"));
  EXPECT_EQ(checks_of(v)["limit_hit"], "lifetime");
  EXPECT_EQ(checks_of(v)["runner_tree_empty"], true);
}

TEST_F(HostEval, EndlessLoopHitsThePerCallLimitNotTheLifetime) {
  // The per-call limit is derived from the work (100x the reference's time, at least 10 s): far below a
  // 60 s lifetime, and the verdict says which limit was hit.
  EvaluatorOptions o = options();
  o.runner_timeout_s = 60;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok());
  Verdict v = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("endless.cpp"));
  EXPECT_EQ(v.kind, VerdictKind::timeout) << reasons_text(v);
  EXPECT_EQ(checks_of(v)["limit_hit"], "call");
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_NE(v.reasons[0].detail.find("per-call limit"), std::string::npos) << v.reasons[0].detail;
}

TEST_F(HostEval, OracleDoesNotSeeCredentials) {
  ::setenv("KFORGE_TEST_API_KEY", "kforge-test-secret-1", 1);
  ::setenv("KFORGE_TEST_AUTH_TOKEN", "kforge-test-secret-2", 1);
  auto e = Evaluator::create(options());  // its oracle starts now, with this environment
  ASSERT_TRUE(e.ok());
  Verdict v = (*e)->evaluate_file(problem("env_probe.py"), host_candidate("scale_add_honest.cpp"));
  ::unsetenv("KFORGE_TEST_API_KEY");
  ::unsetenv("KFORGE_TEST_AUTH_TOKEN");
  EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
}

TEST_F(HostEval, ARunnerThatIsAWrapperScriptIsTheHarnessFailureNamingTheFix) {
  // A wrapper cannot exec the real program: the sandbox shows the runner only its own file.
  const fs::path script = fs::path(KFORGE_TEST_BINARY_DIR) / "runner-wrapper.sh";
  ASSERT_TRUE(kf::write_file_atomic(script.string(), "#!/bin/sh\nexec /elsewhere/kforge-runner \"$@\"\n").ok());
  fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
  EvaluatorOptions o = options();
  o.runner_path = script.string();
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  Verdict v = (*e)->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  EXPECT_EQ(v.kind, VerdictKind::harness_error);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons.front().code, "harness.runner_missing");
  EXPECT_NE(v.reasons.front().detail.find("KFORGE_RUNNER"), std::string::npos) << v.reasons.front().detail;
}

TEST(HostEvalOptions, RejectsFewerThanThreeTrials) {
  EvaluatorOptions o;
  o.backend = Backend::host;
  o.trials = 2;
  auto e = Evaluator::create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, "usage.trials");
}

}  // namespace
