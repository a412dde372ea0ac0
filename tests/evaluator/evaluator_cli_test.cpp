// `kforge eval` / `kforge signature` end to end on the host backend (label integration). Runs the
// evaluator-only CLI driver built beside the tests; its handlers are the ones the real kforge registers.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "evaluator/evaluator.h"
#include "test_support.h"
#include "tests/support/command.h"

using namespace kf::eval::test;

namespace {

struct Ran {
  int code = -1;
  std::string out;
};

Ran run(const std::string& args) {
  std::string cmd = std::string("KFORGE_DATA_DIR=") + src("") + " KFORGE_RUNNER=" + runner_path() + " " +
                    KFORGE_TEST_BINARY_DIR + "/kforge " + args + " 2>/dev/null";
  const auto ran = ::kf::testing::run_shell(cmd);
  return {ran.exit_code, ran.out};
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    py_ = python_with_torch();
    ASSERT_FALSE(py_.empty()) << kNoTorchAdvice;
    common_ = " --backend host --python " + py_ + " --cache-dir " + KFORGE_TEST_BINARY_DIR + "/evaluator-test-cache ";
  }
  std::string py_, common_;
};

TEST_F(Cli, EvalJsonAndExitCodes) {
  Ran ok = run("eval --problem " + problem("scale_add.py") + " --candidate " + host_candidate("scale_add_honest.cpp") +
               common_ + "--json");
  EXPECT_EQ(ok.code, 0) << ok.out;
  auto j = nlohmann::json::parse(ok.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << ok.out;
  EXPECT_EQ(j["verdict"], "correct");
  EXPECT_EQ(j["correct"], true);
  EXPECT_TRUE(j["time_ms"].is_number());

  Ran bad = run("eval --problem " + problem("scale_add.py") + " --candidate " +
                host_candidate("scale_add_passthrough.cpp") + common_ + "--json");
  EXPECT_EQ(bad.code, 1) << bad.out;
  auto jb = nlohmann::json::parse(bad.out, nullptr, false);
  ASSERT_TRUE(jb.is_object());
  EXPECT_EQ(jb["verdict"], "rejected");
  EXPECT_EQ(jb["reasons"][0]["code"], "rejected.trivial_output");

  Ran broken = run("eval --problem " + problem("reference_raises.py") + " --candidate " +
                   host_candidate("scale_add_honest.cpp") + common_);
  EXPECT_EQ(broken.code, 2) << broken.out;
  EXPECT_NE(broken.out.find("reference_raises.py"), std::string::npos) << broken.out;

  Ran usage = run("eval --problem x.py --candidate y.cpp --backend nope");
  EXPECT_EQ(usage.code, 2);
}

TEST_F(Cli, KernelbenchSolutionJudged) {
  // The self-test's honest relu solution, with the self-test's cache: its extension is built once for both.
  const std::string common =
      " --backend host --python " + py_ + " --cache-dir " + KFORGE_TEST_BINARY_DIR + "/selftest-cache --json";
  const std::string relu = src("tests/adversarial/problems/relu.py");
  Ran ok = run("eval --problem " + relu + " --candidate " + src("tests/adversarial/kernelbench/host/honest_relu.py") +
               common);
  EXPECT_EQ(ok.code, 0) << ok.out;
  auto j = nlohmann::json::parse(ok.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << ok.out;
  EXPECT_EQ(j["verdict"], "correct") << j["reasons"].dump();
  EXPECT_EQ(j["candidate_kind"], "kernelbench");
  EXPECT_GT(j["checks"]["custom_kernel_calls"].get<int64_t>(), 0);
  EXPECT_EQ(j["checks"]["static"]["reference_ops"], nlohmann::json({"relu"}));
  EXPECT_EQ(j["checks"]["timing"]["baseline"]["copies_outputs"], true);
  EXPECT_TRUE(j["time_ms"].is_number());

  // The reference's own operator in forward, no kernel: rejected before anything of the solution runs.
  Ran fallback = run("eval --problem " + relu + " --candidate " +
                     src("tests/adversarial/kernelbench/host/fallback_plain.py") + common);
  EXPECT_EQ(fallback.code, 1) << fallback.out;
  auto jf = nlohmann::json::parse(fallback.out, nullptr, false);
  ASSERT_TRUE(jf.is_object()) << fallback.out;
  EXPECT_EQ(jf["verdict"], "rejected");
  EXPECT_EQ(jf["reasons"][0]["code"], "rejected.torch_fallback");
}

TEST_F(Cli, SignaturePrintsTheDeclaration) {
  Ran r = run("signature " + problem("linear.py") + " --backend host --python " + py_);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("inputs[1]  fc.weight: KF_FLOAT32 [4, 16]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("int kf_forward("), std::string::npos);
  Ran missing = run("signature " + problem("nope.py") + " --backend host --python " + py_);
  EXPECT_EQ(missing.code, 2) << missing.out;
}

}  // namespace
