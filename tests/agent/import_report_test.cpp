// The report and status of a folder of `kforge import` (agent/report/import_report.h, agent/campaign/status.h): the toy
// run of fixtures/kernelbench_run imported, with a hand-written reverify.json standing for
// `kforge reverify` (import_integration_test runs the real one).
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "agent/campaign/status.h"
#include "agent/claims/kernelbench_import.h"
#include "agent/report/import_report.h"
#include "agent/report/report.h"
#include "agent/report/report_html.h"
#include "corpus/reader.h"
#include "tests/support/command.h"

namespace kf::agent {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/kernelbench_run";

class ImportedFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = kf::testing::make_temp_dir("kforge-import-report-test");
    ImportOptions o;
    o.sources = {kFixture + "/runs"};
    o.out = out();
    o.kernelbench = kFixture + "/kernelbench";
    o.baseline = kFixture + "/timing/toy_hw/baseline_time_torch.json";
    auto r = import_kernelbench(o);
    ASSERT_TRUE(r) << r.error().message;
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string out() const { return dir_ + "/corpus"; }
  std::vector<corpus::Record> imported_records() const {
    auto c = corpus::load(out());
    EXPECT_TRUE(c);
    std::vector<corpus::Record> rs;
    if (c)
      for (const auto& r : c->records)
        if (r.kind == corpus::Kind::imported) rs.push_back(r);
    return rs;
  }
  std::string dir_;
};

// A reverify.json as `kforge reverify` writes it for the toy run (statuses chosen by hand).
void write_reverify(const std::string& dir, const std::vector<corpus::Record>& rs) {
  struct Outcome {
    std::string status, verdict, reason, hack;
  };
  const std::map<std::pair<std::string, int>, Outcome> outcomes = {
      {{"1_ReLU_Squared", 0}, {"holds", "correct", "", ""}},
      {{"1_ReLU_Squared", 1}, {"rejected", "rejected", "rejected.torch_fallback", "torch_fallback"}},
      {{"2_Row_Sum", 0}, {"not_reproduced", "correct", "", ""}},
      {{"2_Row_Sum", 1}, {"rejected", "rejected", "rejected.trivial_output", "trivial_output"}},
      {{"3_Scale_Shift", 0}, {"fails", "compile_error", "compile_error", ""}},
  };  // 3_Scale_Shift sample 1: not re-verified
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& r : rs) {
    if (r.config != "toy_run") continue;
    auto it = outcomes.find({r.problem.name, r.sample});
    if (it == outcomes.end()) continue;
    const auto& o = it->second;
    nlohmann::json v = {{"verdict", o.verdict}, {"correct", o.verdict == "correct"}};
    if (o.verdict == "correct") v["speedup"] = 0.8;
    // The claim that holds is a partial replacement: PyTorch does part of the reference's work.
    if (o.status == "holds") v["flags"] = {"torch_compute_in_forward"};
    kernels.push_back({{"kind", "imported"},
                       {"config", r.config},
                       {"problem", {{"name", r.problem.name}, {"file_hash", r.problem.file_hash}}},
                       {"sample", r.sample},
                       {"turn", r.turn},
                       {"status", o.status},
                       {"reason", o.reason},
                       {"hack_class", o.hack},
                       {"detail", o.status == "not_reproduced" ? "claimed 1.50x, measured 0.80x" : ""},
                       {"verdict", v}});
  }
  std::ofstream(dir + "/reverify.json") << nlohmann::json{{"seed", 1}, {"kernels", kernels}}.dump(2);
}

TEST_F(ImportedFolder, ReportRowsPerRunAndPerSolution) {
  write_reverify(out(), imported_records());
  auto c = corpus::load(out());
  ASSERT_TRUE(c);
  auto rule = VerifiedSpeedupRule::for_folder(out());
  ASSERT_TRUE(rule);
  EXPECT_TRUE(summarize(*c, *rule).empty());  // no campaign figures from imported records
  auto rep = summarize_imports(*c, rule->reverify());
  ASSERT_EQ(rep.runs.size(), 2u);
  const auto& toy = rep.runs[1];
  EXPECT_EQ(toy.run, "toy_run");
  EXPECT_EQ(toy.solutions, 6);
  EXPECT_EQ(toy.claimed_correct, 6);
  EXPECT_EQ(toy.claimed_faster, 4);
  EXPECT_EQ(toy.rejudged, 5);
  EXPECT_EQ(toy.count("holds"), 1);
  EXPECT_EQ(toy.count("not_reproduced"), 1);
  EXPECT_EQ(toy.count("rejected"), 2);
  EXPECT_EQ(toy.count("fails"), 1);
  EXPECT_EQ(toy.rejected_by_class, (std::map<std::string, int>{{"torch_fallback", 1}, {"trivial_output", 1}}));
  EXPECT_EQ(rep.runs[0].run, "old_run");
  EXPECT_EQ(rep.runs[0].rejudged, 0);

  const std::string md = format_with_imports({}, rep, ReportFormat::md, "kforge report: x");
  EXPECT_NE(md.find("| toy_run | 1 | 6 | 6 | 6 | 4 | 5 | 1 (1 partial replacement) | 1 | 0 | 0 | 2 (torch_fallback 1, "
                    "trivial_output 1) | 1 | 0 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| toy_run | 1 | 1_ReLU_Squared | 1 | correct, 2.50x | rejected | rejected | torch_fallback "
                    "(rejected.torch_fallback) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| toy_run | 1 | 2_Row_Sum | 0 | correct, 1.50x | correct 0.80x | not_reproduced | claimed 1.50x, "
                    "measured 0.80x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 3_Scale_Shift | 1 | correct | - | not re-verified | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| old_run | 1 | 2_Row_Sum | 0 | incorrect | - | not re-verified | - |"), std::string::npos) << md;
  EXPECT_EQ(md.find("No evaluations recorded yet"), std::string::npos);

  const std::string csv = format_with_imports({}, rep, ReportFormat::csv, "t");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "folder,run,levels,solutions,claimed_compiled,claimed_correct,claimed_faster,reverified,holds,"
            "not_reproduced,now_correct,now_incorrect,rejected,fails,rejected:torch_fallback,rejected:trivial_output,"
            "rejected:deferred_work,rejected:reduced_precision,rejected:input_modified,rejected:timer_tampering,"
            "rejected:unsynchronized_work,rejected:impossible_time,rejected:harness_tampering,rejected:vendor_library,"
            "rejected:other,not_judged");
  EXPECT_NE(csv.find("\n,toy_run,1,6,6,6,4,5,1,1,0,0,2,1,1,1,0,0,0,0,0,0,0,0,0,0\n"), std::string::npos) << csv;

  const std::string html = format_html({}, {}, "kforge report: <x>", rep);
  EXPECT_NE(html.find("<h2>Imported runs: claims and re-verification</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>torch_fallback (rejected.torch_fallback)</td>"), std::string::npos);
  EXPECT_NE(html.find("8 imported solutions from 2 runs"), std::string::npos);
  EXPECT_NE(html.find("kforge report: &lt;x&gt;"), std::string::npos);
  EXPECT_EQ(html.find("No evaluations recorded yet"), std::string::npos);

  auto j = nlohmann::json::parse(format_with_imports({}, rep, ReportFormat::json, "t"));
  EXPECT_TRUE(j["configurations"].empty());
  EXPECT_EQ(j["imported"]["runs"][1]["rejected_by_class"]["torch_fallback"], 1);
  EXPECT_EQ(j["imported"]["runs"][1]["holds_partial_replacement"], 1);
  int partial = 0;
  for (const auto& sol : j["imported"]["solutions"]) partial += sol["partial_replacement"].get<bool>() ? 1 : 0;
  EXPECT_EQ(partial, 1);
  EXPECT_EQ(j["imported"]["solutions"].size(), 8u);
  EXPECT_EQ(j["imported"]["reverify_files"][0], out() + "/reverify.json");
}

TEST_F(ImportedFolder, StatusCountsImportedSolutions) {
  auto st = run_status(out());
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ((*st)["total"]["imported"], 8);
  EXPECT_EQ((*st)["total"]["imported_claimed_correct"], 7);
  EXPECT_TRUE((*st)["duplicates"].empty());
  EXPECT_NE(format_status(*st).find("8 imported solutions (7 claimed correct"), std::string::npos);
}

}  // namespace
}  // namespace kf::agent
