// `kforge import` -> `kforge reverify --backend host` -> `kforge report`, end to end with the real binary,
// the real evaluator (kernelbench candidates on the host backend: CPU torch, g++), on
// fixtures/kernelbench_run (its README.md says what each solution is and what kforge must find).
// Label: integration.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/command.h"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using kf::testing::quote;

const std::string kFixture = std::string(KFORGE_TEST_SOURCE_DIR) + "/tests/agent/fixtures/kernelbench_run";

using kf::testing::kNoTorchAdvice;
using kf::testing::python_with_torch;

class ImportIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_with_torch();
    ASSERT_FALSE(python_.empty()) << kNoTorchAdvice;
    dir_ = kf::testing::make_temp_dir("kforge-import-it");
  }
  void TearDown() override {
    if (!HasFailure() && !dir_.empty()) fs::remove_all(dir_);
  }
  // Runs kforge with `args`, stdout into dir_/<log>, stderr appended to it; returns the exit code.
  int kforge(const std::string& args, const std::string& log) {
    const std::string cmd = "KFORGE_PYTHON=" + quote(python_) + " " + quote(kf::testing::kforge_binary()) + " " +
                            args + " >" + quote(dir_ + "/" + log) + " 2>&1";
    return kf::testing::run_shell(cmd).exit_code;
  }
  std::string log(const std::string& name) { return kf::testing::slurp(dir_ + "/" + name); }
  std::string corpus() const { return dir_ + "/corpus"; }

  std::string python_;
  std::string dir_;
};

TEST_F(ImportIntegration, ImportReverifyReport) {
  const std::string import_args = quote(kFixture + "/runs") + " --out " + quote(corpus()) + " --kernelbench " +
                                  quote(kFixture + "/kernelbench") + " --baseline " +
                                  quote(kFixture + "/timing/toy_hw/baseline_time_torch.json");
  ASSERT_EQ(kforge("import " + import_args, "import.log"), 0) << log("import.log");
  EXPECT_NE(log("import.log").find("| toy_run | kernelbench-run | 1 | 9 | 7 | 6 | 0 | 7 | 7 | 4 | 1 | 1 (4) |"), std::string::npos)
      << log("import.log");
  // Idempotent.
  ASSERT_EQ(kforge("import " + import_args, "import2.log"), 0) << log("import2.log");
  EXPECT_NE(log("import2.log").find("| toy_run | kernelbench-run | 1 | 9 | 7 | 0 | 6 |"), std::string::npos) << log("import2.log");
  ASSERT_EQ(kforge("status " + quote(corpus()), "status.log"), 0) << log("status.log");
  EXPECT_NE(log("status.log").find("8 imported solutions (7 claimed correct"), std::string::npos) << log("status.log");

  // Claims do not all hold (hacks among them): exit 1.
  ASSERT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --seed 5", "reverify.log"), 1)
      << log("reverify.log");
  auto rv = json::parse(kf::testing::slurp(corpus() + "/reverify.json"));
  std::map<std::string, json> by;
  for (const auto& k : rv["kernels"])
    by[k["run"].get<std::string>() + "/" + k["problem"]["name"].get<std::string>() + "/" +
       std::to_string(k["sample"].get<int>())] = k;
  // Claimed correct: 6 in toy_run, 1 in old_run (its incorrect claim is not re-judged without --all).
  ASSERT_EQ(by.size(), 7u) << rv.dump(2);
  const json& honest = by["toy_run/3_Scale_Shift/1"];
  // The honest solution without a claimed speedup holds whatever the timing; the others hold or not
  // depending on this machine's timing, never anything else.
  EXPECT_EQ(honest["status"], "holds") << honest.dump(2);
  for (const char* key : {"toy_run/1_ReLU_Squared/0", "toy_run/2_Row_Sum/0", "old_run/1_ReLU_Squared/0"}) {
    const std::string st = by[key]["status"];
    EXPECT_TRUE(st == "holds" || st == "not_reproduced") << key << ": " << by[key].dump(2);
  }
  EXPECT_EQ(by["toy_run/1_ReLU_Squared/1"]["status"], "rejected") << by["toy_run/1_ReLU_Squared/1"].dump(2);
  EXPECT_EQ(by["toy_run/1_ReLU_Squared/1"]["hack_class"], "torch_fallback");
  EXPECT_EQ(by["toy_run/2_Row_Sum/1"]["status"], "rejected") << by["toy_run/2_Row_Sum/1"].dump(2);
  EXPECT_EQ(by["toy_run/2_Row_Sum/1"]["hack_class"], "trivial_output");
  EXPECT_EQ(by["toy_run/3_Scale_Shift/0"]["status"], "fails") << by["toy_run/3_Scale_Shift/0"].dump(2);
  EXPECT_EQ(by["toy_run/3_Scale_Shift/0"]["verdict"]["verdict"], "compile_error");
  EXPECT_EQ(rv["imported"]["rejected_by_class"], (json{{"torch_fallback", 1}, {"trivial_output", 1}}));
  EXPECT_NE(log("reverify.log").find("| toy_run | 1_ReLU_Squared | 1 | 2.500x |"), std::string::npos)
      << log("reverify.log");

  ASSERT_EQ(kforge("report " + quote(corpus()) + " --format json", "report.json"), 0) << log("report.json");
  auto rep = json::parse(log("report.json"));
  ASSERT_EQ(rep["imported"]["runs"].size(), 2u);
  const json& toy = rep["imported"]["runs"][1];
  EXPECT_EQ(toy["run"], "toy_run");
  EXPECT_EQ(toy["solutions"], 6);
  EXPECT_EQ(toy["claimed_correct"], 6);
  EXPECT_EQ(toy["claimed_faster"], 4);
  EXPECT_EQ(toy["reverified"], 6);
  EXPECT_EQ(toy["holds"].get<int>() + toy["not_reproduced"].get<int>(), 3);
  EXPECT_EQ(toy["rejected"], 2);
  EXPECT_EQ(toy["fails"], 1);
  EXPECT_EQ(toy["now_incorrect"], 0);
  EXPECT_EQ(rep["imported"]["runs"][0]["reverified"], 1);

  ASSERT_EQ(kforge("report " + quote(corpus()), "report.md"), 0) << log("report.md");
  EXPECT_NE(log("report.md").find("2 (torch_fallback 1, trivial_output 1)"), std::string::npos) << log("report.md");
  ASSERT_EQ(kforge("report " + quote(corpus()) + " --format csv", "report.csv"), 0);
  ASSERT_EQ(kforge("report " + quote(corpus()) + " --format html --gnuplot /nonexistent/gnuplot", "report.html"), 0)
      << log("report.html");  // no campaign figures to draw: no gnuplot needed
  EXPECT_NE(log("report.html").find("Imported runs"), std::string::npos);
  ASSERT_EQ(kforge("compare " + quote(corpus()) + " " + quote(corpus()), "compare.md"), 0) << log("compare.md");
  EXPECT_NE(log("compare.md").find("| corpus | toy_run |"), std::string::npos) << log("compare.md");
}

}  // namespace
