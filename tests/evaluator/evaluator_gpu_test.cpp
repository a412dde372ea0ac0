// KernelBench level-1 problems on a real GPU (label gpu; skipped without a GPU or without the problems).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "evaluator/evaluator.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace kf::eval;
using namespace kf::eval::test;

namespace {

std::string level1_dir() {
  const char* e = std::getenv("KFORGE_KERNELBENCH_LEVEL1");
  return e && *e ? e : KFORGE_KERNELBENCH_LEVEL1;
}

bool have_gpu() { return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0; }

class GpuEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    python_ = python_with_torch();
    if (python_.empty() || !have_gpu() || !fs::exists(level1_dir())) return;
    EvaluatorOptions o;
    o.backend = Backend::cuda;
    o.python = python_;
    o.runner_path = runner_path();
    if (const char* c = std::getenv("KFORGE_TEST_CACHE_DIR"); c && *c) o.cache_dir = c;
    auto e = Evaluator::create(o);
    ASSERT_TRUE(e.ok()) << e.error().message;
    eval_ = std::move(e.value()).release();
    // The facts were measured on an H200: another GPU's baselines are not compared with them.
    auto env = eval_->environment();
    std::ifstream in(fs::path(level1_dir()).parent_path() / "h200_level1_facts.json");
    if (in && env.ok() && env->gpu_name.find("H200") != std::string::npos)
      facts_ = nlohmann::json::parse(in, nullptr, false);
  }
  static void TearDownTestSuite() {
    delete eval_;
    eval_ = nullptr;
  }
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    ASSERT_FALSE(python_.empty()) << kNoTorchAdvice;
    if (!fs::exists(level1_dir())) GTEST_SKIP() << "KernelBench level 1 not found at " << level1_dir();
    ASSERT_NE(eval_, nullptr);
  }

  std::string find_problem(const std::string& prefix) {
    for (const auto& e : fs::directory_iterator(level1_dir()))
      if (e.path().filename().string().rfind(prefix + "_", 0) == 0) return e.path().string();
    return {};
  }

  // Evaluates, prints one figure line for the benchmark table, checks the baseline against the facts.
  Verdict check(const std::string& prefix, const std::string& candidate, bool expect_correct, bool compare_facts = true,
                Evaluator* with = nullptr) {
    std::string prob = find_problem(prefix);
    EXPECT_FALSE(prob.empty()) << prefix;
    Verdict v = (with ? with : eval_)->evaluate_file(prob, src("tests/evaluator/cuda/" + candidate));
    std::printf(
        "GPUFIG problem=%s candidate=%s verdict=%s time_ms=%.4f ref_ms=%.4f speedup=%.3f compile_s=%.2f "
        "eval_s=%.2f\n",
        fs::path(prob).stem().c_str(), candidate.c_str(), to_string(v.kind).c_str(), v.time_ms.value_or(-1),
        v.ref_time_ms.value_or(-1), v.speedup.value_or(-1), v.compile_s, v.eval_s);
    if (expect_correct) {
      EXPECT_EQ(v.kind, VerdictKind::correct) << reasons_text(v) << "\n" << v.compiler_output;
      std::string stem = fs::path(prob).stem().string();
      if (compare_facts && v.ref_time_ms && facts_.is_object() && facts_["problems"].contains(stem)) {
        double fact = facts_["problems"][stem]["eager_ms"].get<double>();
        std::printf("GPUFIG baseline %s measured=%.4f facts=%.4f ratio=%.3f\n", stem.c_str(), *v.ref_time_ms, fact,
                    *v.ref_time_ms / fact);
        EXPECT_NEAR(*v.ref_time_ms / fact, 1.0, 0.15) << stem << ": measured " << *v.ref_time_ms << " ms";
      }
      // The baseline ran on a clean device, as NVML's per-process accounting saw it (docs/evaluator.md, "A clean
      // device"), with the persisting-L2 configuration reset.
      const auto& checks = checks_of(v)["timing"]["baseline"]["device_checks"];
      if (checks.is_array() && !checks.empty()) {
        const auto& last = checks.back();
        EXPECT_EQ(last["after"]["clean"], true) << checks.dump();
        EXPECT_EQ(last["after"]["checked"], "nvml") << checks.dump();
        EXPECT_EQ(last["before"]["persisting_l2_reset"], true) << checks.dump();
      }
    }
    return v;
  }

  static inline std::string python_;
  static inline Evaluator* eval_ = nullptr;
  static inline nlohmann::json facts_;
};

// KernelBench solutions (docs/candidates.md): evaluated twice, the second time from the compile cache; the
// GPUFIG lines give the cold and warm compile and evaluation times. The baseline copies its outputs here, so
// it is not compared with the facts.
TEST_F(GpuEval, KernelbenchCudaRelu19) {
  for (int pass = 0; pass < 2; ++pass) {
    Verdict v = check("19", "relu_solution.py", true, false);
    EXPECT_EQ(v.candidate_kind, "kernelbench");
    EXPECT_GT(v.checks.custom_kernel_calls.value_or(0), 0);
    EXPECT_EQ(checks_of(v)["timing"]["baseline"]["copies_outputs"], true);
  }
}
TEST_F(GpuEval, KernelbenchTritonRelu19) {
  for (int pass = 0; pass < 2; ++pass) {
    Verdict v = check("19", "relu_triton_solution.py", true, false);
    EXPECT_EQ(v.candidate_kind, "kernelbench");
    EXPECT_GT(v.checks.custom_kernel_calls.value_or(0), 0);
  }
}
TEST_F(GpuEval, Matmul1) { check("1", "matmul.cu", true); }
// The round overhead is calibrated beside runner-side GPU work about as long as a round of reference calls:
// the calibration's memsets wrote bytes and took device time in every round after the warm-up.
TEST_F(GpuEval, Relu19) {
  Verdict v = check("19", "relu.cu", true);
  const auto& log = checks_of(v)["timing"]["candidate"]["calibration_log"];
  ASSERT_GE(log.size(), 17u);  // 2 warm-up rounds and 15 to 45 samples
  ASSERT_LE(log.size(), 47u);
  for (size_t i = 2; i < log.size(); ++i) {
    EXPECT_GT(log[i][1].get<double>(), 0) << log.dump();
    EXPECT_GT(log[i][2].get<double>(), 0) << log.dump();
  }
  std::printf("GPUFIG calibration %s overhead_ms=%.4f\nGPUFIG rounds %s\n", log.dump().c_str(),
              checks_of(v)["timing"]["candidate"]["round_overhead_ms"].get<double>(),
              checks_of(v)["timing"]["candidate"]["rounds_log"].dump().c_str());
}
TEST_F(GpuEval, Softmax23) { check("23", "softmax.cu", true); }
// A candidate that leaks 4 GiB and leaves a persisting-L2 set-aside and access window behind: check() asks that
// the baseline ran after NVML saw the device clean and the persisting-L2 configuration was reset, and that the
// baseline agrees with the facts (a baseline timed with L2 set aside would not).
TEST_F(GpuEval, DirtyDeviceIsCleanedBeforeTheBaseline) {
  Verdict v = check("19", "relu_dirty_device.cu", true);
  const auto& checks = checks_of(v)["timing"]["baseline"]["device_checks"];
  ASSERT_TRUE(checks.is_array() && !checks.empty()) << checks_of(v)["timing"]["baseline"].dump();
  std::printf("GPUFIG device_checks %s\n", checks.dump().c_str());
}
// Eager LayerNorm takes ~8 ms, the candidate ~0.25 ms: its rounds hold more calls than the baseline's.
TEST_F(GpuEval, LayerNorm40) {
  Verdict v = check("40", "layernorm.cu", true);
  const auto& t = checks_of(v)["timing"];
  EXPECT_GT(t["candidate"]["calls_per_round"].get<int>(), t["baseline"]["calls_per_round"].get<int>()) << t.dump();
}
// The facts file timed eager conv under torch's defaults, where cuDNN may use TF32; kforge's baseline runs
// with TF32 off like the reference (candidates must meet fp32 accuracy). Like with like: the facts are
// compared with a baseline timed under torch's defaults; the production baseline is printed too.
TEST_F(GpuEval, Conv50) {
  check("50", "conv2d.cu", true, /*compare_facts=*/false);
  EvaluatorOptions o = eval_->options();
  o.baseline_cudnn_tf32 = true;
  auto e = Evaluator::create(o);
  ASSERT_TRUE(e.ok()) << e.error().message;
  check("50", "conv2d.cu", true, /*compare_facts=*/true, e->get());
}
TEST_F(GpuEval, CrossEntropy95) { check("95", "cross_entropy.cu", true); }

TEST_F(GpuEval, SoftmaxZerosRejected) {
  Verdict v = check("23", "softmax_zeros.cu", false);
  EXPECT_FALSE(v.correct());
  EXPECT_EQ(v.kind, VerdictKind::rejected) << reasons_text(v);
  EXPECT_TRUE(has_reason(v, "rejected.trivial_output")) << reasons_text(v);
}

// The yardsticks on a GPU: both baselines timed (the compile baseline is on by default on cuda), the roofs
// from the table for a known GPU (measured ones, said so, for another), and a fraction of peak for the
// kernel and each baseline. The figures are printed for the GPU acceptance (docs/evaluator.md, "Yardsticks").
TEST_F(GpuEval, YardsticksRelu19) {
  Verdict v = check("19", "relu.cu", true, /*compare_facts=*/false);
  ASSERT_TRUE(v.correct());
  ASSERT_TRUE(v.roofline.has_value());
  const auto& peaks = v.roofline->peaks;
  if (known_gpu(peaks.device)) {
    EXPECT_EQ(peaks.source, "table");
    EXPECT_TRUE(peaks.measured_bandwidth_gbps.has_value());
  } else {
    EXPECT_EQ(peaks.source, "measured");
    EXPECT_FALSE(peaks.note.empty());
  }
  ASSERT_TRUE(v.peak.has_value());
  EXPECT_EQ(v.peak->bound_by, "memory");
  for (const char* name : {"eager", "compile"}) {
    ASSERT_TRUE(v.baselines.count(name)) << name;
    const auto& b = v.baselines.at(name);
    EXPECT_TRUE(b.time_ms.has_value()) << name << ": " << b.error;
    EXPECT_TRUE(b.peak.has_value()) << name;
  }
  std::printf("GPUFIG yardsticks %s\n", nlohmann::json{{"baselines", v.to_json()["baselines"]},
                                                       {"peak", v.to_json()["peak"]},
                                                       {"roofline", v.to_json()["roofline"]}}
                                            .dump()
                                            .c_str());
}

TEST_F(GpuEval, EnvironmentReportsTheGpu) {
  auto e = eval_->environment();
  ASSERT_TRUE(e.ok()) << e.error().message;
  std::printf("GPUFIG env %s\n", e->to_json().dump().c_str());
  EXPECT_FALSE(e->gpu_name.empty());
}

}  // namespace
