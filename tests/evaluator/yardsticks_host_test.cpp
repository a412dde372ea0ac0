// The yardsticks on the host backend with real processes (CPU torch 2.x): the roofline's FLOP and byte counts
// against analytic values, an evaluation with both baselines and fractions of peak, and a reference that
// torch.compile cannot compile. Label integration; the compile tests cost an inductor build each (minutes on
// a busy 2-core machine, cached in the test's cache folder afterwards).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "evaluator/evaluator.h"
#include "test_support.h"

using namespace kf::eval;
using namespace kf::eval::test;

namespace {

class Yardsticks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    python_ = python_with_torch();
    if (python_.empty()) return;
    auto e = Evaluator::create(options(true));
    ASSERT_TRUE(e.ok()) << e.error().message;
    eval_ = std::move(e.value()).release();
  }
  static void TearDownTestSuite() {
    delete eval_;
    eval_ = nullptr;
  }
  static EvaluatorOptions options(bool compile) {
    EvaluatorOptions o;
    o.backend = Backend::host;
    o.python = python_;
    o.cache_dir = std::string(KFORGE_TEST_BINARY_DIR) + "/evaluator-test-cache";
    o.runner_path = runner_path();
    o.min_rounds = 3;
    o.max_rounds = 5;
    o.timing_budget_ms = 1;
    o.runner_timeout_s = 120;  // the default: a busy 2-core machine stretches the round calibration
    o.compile_baseline = compile ? "on" : "off";
    return o;
  }
  void SetUp() override { ASSERT_FALSE(python_.empty()) << kNoTorchAdvice; }
  static Work work_of(const std::string& name) {
    auto r = eval_->roofline(problem("roofline/" + name));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    if (!r.ok()) return {};
    EXPECT_TRUE(r->error.empty()) << r->error;
    EXPECT_EQ(r->shapes.size(), 1u);  // fixed shapes: one entry whatever the seeds
    return r->work;
  }
  static inline std::string python_;
  static inline Evaluator* eval_ = nullptr;
};

double flops(const Work& w, const std::string& dtype) {
  auto it = w.flops.find(dtype);
  return it == w.flops.end() ? 0.0 : it->second;
}

TEST_F(Yardsticks, MatmulFlopsAndBytes) {
  Work w = work_of("matmul.py");
  EXPECT_DOUBLE_EQ(flops(w, "float32"), 2.0 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(w.other_flops, 0);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (64 * 32 + 32 * 16 + 64 * 16));
}

TEST_F(Yardsticks, RooflineCountKeptInTheCacheFolderWithTheSameFigures) {
  namespace fs = std::filesystem;
  Work counted = work_of("matmul.py");
  const fs::path dir = fs::path(options(false).cache_dir) / "roofline";
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") entries.push_back(e.path());
  ASSERT_FALSE(entries.empty()) << "no roofline entry in " << dir;
  // Another evaluator (another oracle process) reads the entry: the same figures.
  auto fresh = Evaluator::create(options(false));
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  auto read = (*fresh)->roofline(problem("roofline/matmul.py"));
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->work.to_json(), counted.to_json());
  // Damaged entries are counted anew, again with the same figures.
  for (const auto& e : entries) {
    std::ofstream f(e, std::ios::trunc);
    f << "{\"material\": 1";
  }
  auto again = Evaluator::create(options(false));
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto recounted = (*again)->roofline(problem("roofline/matmul.py"));
  ASSERT_TRUE(recounted.ok()) << recounted.error().message;
  EXPECT_EQ(recounted->work.to_json(), counted.to_json());
}

TEST_F(Yardsticks, BatchedMatmulFlopsAndBytes) {
  Work w = work_of("bmm.py");
  EXPECT_DOUBLE_EQ(flops(w, "float32"), 2.0 * 4 * 8 * 16 * 12);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (4 * 8 * 16 + 4 * 16 * 12 + 4 * 8 * 12));
}

TEST_F(Yardsticks, Conv2dFlopsAndBytesCountTheWeight) {
  Work w = work_of("conv2d.py");
  // Output 2x8x8x10, each element a 3x3x3 multiply-accumulate.
  EXPECT_DOUBLE_EQ(flops(w, "float32"), 2.0 * (2 * 8 * 8 * 10) * (3 * 3 * 3));
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (2 * 3 * 10 * 12 + 8 * 3 * 3 * 3 + 2 * 8 * 8 * 10));
}

TEST_F(Yardsticks, ElementwiseSoftmaxAndReductionAreNotMatmulFlops) {
  Work relu = work_of("relu.py");
  EXPECT_TRUE(relu.flops.empty());  // torch's FLOP counter counts matmuls, convolutions and attention only
  EXPECT_DOUBLE_EQ(relu.other_flops, 1000);
  EXPECT_DOUBLE_EQ(relu.bytes, 4.0 * (1000 + 1000));
  Work sm = work_of("softmax.py");
  EXPECT_TRUE(sm.flops.empty());
  EXPECT_DOUBLE_EQ(sm.other_flops, 5.0 * 16 * 100);  // max, subtract, exp, sum, divide
  EXPECT_DOUBLE_EQ(sm.bytes, 4.0 * (1600 + 1600));
  Work sum = work_of("row_sum.py");
  EXPECT_TRUE(sum.flops.empty());
  EXPECT_DOUBLE_EQ(sum.other_flops, 32.0 * 50);
  EXPECT_DOUBLE_EQ(sum.bytes, 4.0 * (32 * 50 + 32));
}

TEST_F(Yardsticks, HostPeaksAreMeasured) {
  auto r = eval_->roofline(problem("roofline/relu.py"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->peaks.source, "measured");
  EXPECT_GT(r->peaks.bandwidth_gbps, 0);
  EXPECT_GT(r->peaks.tflops.at("float32"), 0);
  EXPECT_NE(r->peaks.note.find("host backend"), std::string::npos);
}

TEST_F(Yardsticks, BothBaselinesAndFractionsOfPeakInTheVerdict) {
  Verdict v = eval_->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  ASSERT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  ASSERT_TRUE(v.baselines.count("eager"));
  ASSERT_TRUE(v.baselines.count("compile"));
  const auto& eager = v.baselines.at("eager");
  const auto& compiled = v.baselines.at("compile");
  ASSERT_TRUE(eager.time_ms && eager.speedup) << eager.error;
  ASSERT_TRUE(compiled.time_ms && compiled.speedup) << compiled.error;
  EXPECT_GT(compiled.compile_s, 0);
  // The primary is eager: its figures are the verdict's.
  EXPECT_EQ(v.baseline, "eager");
  EXPECT_DOUBLE_EQ(*v.ref_time_ms, *eager.time_ms);
  EXPECT_DOUBLE_EQ(*v.speedup, *eager.speedup);
  EXPECT_NEAR(*compiled.speedup, *compiled.time_ms / *v.time_ms, 1e-12);
  // Work: 2 inputs and 1 output of 64x32 float32; fractions for the kernel and both baselines.
  ASSERT_TRUE(v.roofline.has_value());
  EXPECT_DOUBLE_EQ(v.roofline->work.bytes, 3.0 * 64 * 32 * 4);
  ASSERT_TRUE(v.peak && eager.peak && compiled.peak);
  EXPECT_EQ(v.peak->bound_by, "memory");
  EXPECT_NEAR(v.peak->fraction, v.peak->bound_ms / *v.time_ms, 1e-12);
  EXPECT_NEAR(eager.peak->fraction, eager.peak->bound_ms / *eager.time_ms, 1e-12);
  auto j = v.to_json();
  EXPECT_TRUE(j["baselines"]["compile"]["time_ms"].is_number());
  EXPECT_TRUE(j["peak"]["fraction"].is_number());
  EXPECT_EQ(j["roofline"]["device"]["source"], "measured");
  EXPECT_TRUE(j["checks"]["timing"]["baseline_compile"]["median_ms"].is_number());

  // A second evaluation of the problem finds the compiled reference (and both timings) cached.
  Verdict again = eval_->evaluate_file(problem("scale_add.py"), host_candidate("scale_add_honest.cpp"));
  ASSERT_EQ(again.kind, VerdictKind::correct) << reasons_text(again);
  EXPECT_TRUE(again.baselines.at("compile").compile_cached);
  EXPECT_DOUBLE_EQ(*again.baselines.at("compile").time_ms, *compiled.time_ms);
}

TEST_F(Yardsticks, AReferenceTorchCompileCannotCompileIsSaidNotFailed) {
  // Its own evaluator (oracle): the problem breaks inductor's compiler setting for the process it runs in.
  // The compile baseline is the primary one here, so the fallback to eager is seen too.
  auto o = options(true);
  o.baseline = "compile";
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  Verdict v = (*e)->evaluate_file(problem("compile_refuses.py"), host_candidate("relu_honest.cpp"));
  ASSERT_EQ(v.kind, VerdictKind::correct) << reasons_text(v);
  ASSERT_TRUE(v.baselines.count("compile"));
  const auto& c = v.baselines.at("compile");
  EXPECT_FALSE(c.time_ms.has_value());
  EXPECT_NE(c.error.find("torch.compile could not compile the reference"), std::string::npos) << c.error;
  ASSERT_TRUE(v.baselines.at("eager").time_ms.has_value());
  ASSERT_TRUE(v.speedup.has_value());  // eager's
  EXPECT_EQ(v.baseline, "eager");
  EXPECT_NE(std::find(v.flags.begin(), v.flags.end(), "primary_baseline_unavailable"), v.flags.end());
  EXPECT_TRUE(v.to_json()["baselines"]["compile"]["error"].is_string());
}

TEST_F(Yardsticks, BadYardstickOptionsAreUsageErrors) {
  auto o = options(false);
  o.baseline = "cudnn";
  auto e = Evaluator::create(o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, "usage.baseline");
  o = options(false);
  o.baseline = "compile";  // compile primary, compile baseline off
  EXPECT_FALSE(Evaluator::create(o).ok());
  o = options(false);
  o.compile_mode = "reduce-overhead";
  EXPECT_EQ(Evaluator::create(o).error().code, "usage.compile_mode");
}

}  // namespace
