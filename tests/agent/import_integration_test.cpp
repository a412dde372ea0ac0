// `kforge import` -> `kforge reverify --backend host` -> `kforge report`, end to end with the real binary,
// the real evaluator (kernelbench candidates on the host backend: CPU torch, g++), on
// fixtures/kernelbench_run (its README.md says what each solution is and what kforge must find).
// Label: integration.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/command.h"

namespace {
namespace fs = std::filesystem;
using kf::testing::quote;
using nlohmann::json;

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
    const std::string cmd = "KFORGE_PYTHON=" + quote(python_) + " " + quote(kf::testing::kforge_binary()) + " " + args +
                            " >" + quote(dir_ + "/" + log) + " 2>&1";
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
  EXPECT_NE(log("import.log").find("| toy_run | kernelbench-run | 1 | 9 | 7 | 6 | 0 | 7 | 7 | 4 | 1 | 1 (4) |"),
            std::string::npos)
      << log("import.log");
  // Idempotent.
  ASSERT_EQ(kforge("import " + import_args, "import2.log"), 0) << log("import2.log");
  EXPECT_NE(log("import2.log").find("| toy_run | kernelbench-run | 1 | 9 | 7 | 0 | 6 |"), std::string::npos)
      << log("import2.log");
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

// A re-verification that stops early loses nothing: its journal keeps every judged solution, a rerun without
// --resume refuses to throw it away, and --resume judges only the rest, with the journal's seed.
TEST_F(ImportIntegration, ReverifyResumesFromItsJournalAndJudgesNothingTwice) {
  ASSERT_EQ(kforge("import " + quote(kFixture + "/runs") + " --out " + quote(corpus()) + " --kernelbench " +
                       quote(kFixture + "/kernelbench"),
                   "import.log"),
            0)
      << log("import.log");
  ASSERT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --seed 5", "first.log"), 1) << log("first.log");
  const auto first = json::parse(kf::testing::slurp(corpus() + "/reverify.json"));
  ASSERT_EQ(first["kernels"].size(), 7u);
  EXPECT_FALSE(first.contains("not_judged"));

  // As if killed after three solutions, in the middle of writing the fourth.
  const std::string journal = corpus() + "/reverify.journal";
  std::vector<std::string> lines;
  {
    std::istringstream in(kf::testing::slurp(journal));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 9u);  // header, 7 entries, finished
  {
    std::ofstream out(journal, std::ios::trunc);
    for (size_t i = 0; i < 4; ++i) out << lines[i] << "\n";
    out << lines[4].substr(0, lines[4].size() / 2);
  }
  EXPECT_EQ(kforge("reverify " + quote(corpus()) + " --backend host", "refused.log"), 2) << log("refused.log");
  EXPECT_NE(log("refused.log").find("--resume"), std::string::npos) << log("refused.log");
  EXPECT_NE(log("refused.log").find("--restart"), std::string::npos) << log("refused.log");
  EXPECT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --resume --seed 9", "seed.log"), 2)
      << log("seed.log");

  ASSERT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --resume", "resumed.log"), 1) << log("resumed.log");
  EXPECT_NE(log("resumed.log").find("3 of 7 already judged, 1 damaged line(s) dropped"), std::string::npos)
      << log("resumed.log");
  const auto resumed = json::parse(kf::testing::slurp(corpus() + "/reverify.json"));
  EXPECT_EQ(resumed["seed"], 5);
  ASSERT_EQ(resumed["kernels"].size(), 7u);
  // The three journaled solutions were taken as they were judged (their measured times included), not judged again,
  // and the corpus order is kept.
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(resumed["kernels"][i]["problem"], first["kernels"][i]["problem"]) << i;
    EXPECT_EQ(resumed["kernels"][i]["sample"], first["kernels"][i]["sample"]) << i;
  }
  size_t kept = 0;
  for (size_t i = 1; i < 4; ++i) {
    const json entry = json::parse(lines[i])["entry"];
    for (const auto& k : resumed["kernels"])
      if (k["problem"] == entry["problem"] && k["sample"] == entry["sample"] && k["run"] == entry["run"]) {
        EXPECT_EQ(k, entry);
        ++kept;
      }
  }
  EXPECT_EQ(kept, 3u);
  size_t entries = 0;
  {
    std::istringstream in(kf::testing::slurp(journal));
    for (std::string line; std::getline(in, line);) entries += line.rfind("{\"entry\"", 0) == 0;
  }
  EXPECT_EQ(entries, 7u);

  // A time limit stops the run with what it judged kept; --resume finishes it.
  ASSERT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --restart --time-limit 0.001", "limited.log"), 1)
      << log("limited.log");
  const auto limited = json::parse(kf::testing::slurp(corpus() + "/reverify.json"));
  const size_t not_judged = limited.value("not_judged", size_t{0});
  EXPECT_EQ(limited["kernels"].size() + not_judged, 7u);
  if (not_judged > 0) {
    EXPECT_NE(log("limited.log").find("--resume"), std::string::npos) << log("limited.log");
  }
  ASSERT_EQ(kforge("reverify " + quote(corpus()) + " --backend host --resume", "finished.log"), 1)
      << log("finished.log");
  const auto finished = json::parse(kf::testing::slurp(corpus() + "/reverify.json"));
  EXPECT_EQ(finished["kernels"].size(), 7u);
  EXPECT_FALSE(finished.contains("not_judged"));
}

}  // namespace
