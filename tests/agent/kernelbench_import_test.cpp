// `kforge import` into a corpus (agent/claims/kernelbench_import.h) against fixtures/kernelbench_run (its
// README.md lists what each file is and the figures expected below). No evaluator involved.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "agent/claims/kernelbench_import.h"
#include "core/files.h"
#include "core/hash.h"
#include "corpus/reader.h"
#include "tests/support/command.h"

namespace kf::agent {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/kernelbench_run";

ImportOptions toy_options(const std::string& out) {
  ImportOptions o;
  o.sources = {kFixture + "/runs/toy_run"};
  o.out = out;
  o.kernelbench = kFixture + "/kernelbench";
  o.baseline = kFixture + "/timing/toy_hw/baseline_time_torch.json";
  return o;
}

std::vector<corpus::Record> imported_records(const std::string& dir) {
  auto c = corpus::load(dir);
  EXPECT_TRUE(c) << (c ? "" : c.error().message);
  std::vector<corpus::Record> out;
  if (c)
    for (const auto& r : c->records)
      if (r.kind == corpus::Kind::imported) out.push_back(r);
  return out;
}

const corpus::Record* find(const std::vector<corpus::Record>& rs, const std::string& problem, int sample) {
  for (const auto& r : rs)
    if (r.problem.name == problem && r.sample == sample) return &r;
  return nullptr;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

class Import : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = kf::testing::make_temp_dir("kforge-import-test"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string out() const { return dir_ + "/corpus"; }
  std::string dir_;
};

TEST_F(Import, ARunFolderWithItsClaims) {
  auto r = import_kernelbench(toy_options(out()));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 1u);
  const auto& run = r->runs[0];
  EXPECT_EQ(run.name, "toy_run");
  EXPECT_EQ(run.level, 1);
  EXPECT_EQ(run.solutions, 7);
  EXPECT_EQ(run.added, 6);
  EXPECT_EQ(run.already, 0);
  EXPECT_EQ(run.claimed_compiled, 7);
  EXPECT_EQ(run.claimed_correct, 7);
  EXPECT_EQ(run.claimed_faster, 4);
  EXPECT_EQ(run.missing_problems, std::set<int>{4});
  EXPECT_EQ(run.skipped, 1);
  EXPECT_EQ(run.unreadable_entries, 1);
  EXPECT_EQ(run.entries_without_file, 1);
  EXPECT_EQ(run.without_entry, 0);

  auto rs = imported_records(out());
  ASSERT_EQ(rs.size(), 6u);
  const auto* relu = find(rs, "1_ReLU_Squared", 0);
  ASSERT_TRUE(relu);
  EXPECT_EQ(relu->config, "toy_run");
  EXPECT_EQ(relu->provider, "kernelbench");
  EXPECT_EQ(relu->turn, 1);
  EXPECT_EQ(relu->problem.category, "activation");
  EXPECT_EQ(relu->problem.file_hash, *sha256_file(kFixture + "/kernelbench/level1/1_ReLU_Squared.py"));
  ASSERT_TRUE(relu->imported && relu->claim && relu->source);
  EXPECT_EQ(relu->imported->run, "toy_run");
  EXPECT_EQ(relu->imported->level, 1);
  EXPECT_EQ(relu->imported->problem_number, 1);
  EXPECT_EQ(relu->imported->file, "level_1_problem_1_sample_0_kernel.py");
  EXPECT_TRUE(relu->claim->correct.value_or(false));
  EXPECT_DOUBLE_EQ(*relu->claim->runtime_ms, 0.0125);
  EXPECT_DOUBLE_EQ(*relu->claim->baseline_ms, 0.025);
  EXPECT_DOUBLE_EQ(*relu->claim->speedup, 2.0);
  EXPECT_EQ(relu->claim->hardware, "Toy GPU");
  EXPECT_EQ(relu->claim->raw["runtime_stats"]["num_trials"], 100);
  EXPECT_TRUE(relu->warnings.empty());
  EXPECT_TRUE(relu->claimed_correct());
  // The source is copied into the corpus as <stem>.py with its hash.
  EXPECT_EQ(relu->source->path, "sources/toy_run__level_1_problem_1_sample_0_kernel.py");
  auto copied = read_file(out() + "/" + relu->source->path);
  ASSERT_TRUE(copied);
  EXPECT_EQ(sha256_hex(*copied), relu->source->sha256);
  EXPECT_EQ(*copied, *read_file(kFixture + "/runs/toy_run/level_1_problem_1_sample_0_kernel.py"));

  const auto* sum = find(rs, "2_Row_Sum", 0);  // runtime given as a string
  ASSERT_TRUE(sum && sum->claim);
  EXPECT_DOUBLE_EQ(*sum->claim->speedup, 0.03 / 0.02);
  EXPECT_TRUE(any_contains(sum->warnings, "runtime \"0.02\" read as a number"));
  const auto* scale = find(rs, "3_Scale_Shift", 1);  // "True", NaN, and no baseline entry
  ASSERT_TRUE(scale && scale->claim);
  EXPECT_EQ(scale->claim->compiled, true);
  EXPECT_FALSE(scale->claim->runtime_ms);
  EXPECT_FALSE(scale->claim->speedup);
  EXPECT_FALSE(scale->claim->baseline_ms);
  EXPECT_TRUE(any_contains(scale->warnings, "NaN"));
  EXPECT_TRUE(any_contains(scale->warnings, "\"compiled\" \"True\" read as true"));

  // run.json names the import; the folder is no campaign.
  auto manifest = nlohmann::json::parse(*read_file(out() + "/run.json"));
  EXPECT_EQ(manifest["imports"].size(), 1u);
  EXPECT_EQ(manifest["run_id"], r->run_id);
  EXPECT_TRUE(manifest["inputs"]["configs"].empty());
  EXPECT_NE(format_import_result(*r).find(
                "| toy_run | kernelbench-run | 1 | 9 | 7 | 6 | 0 | 7 | 7 | 4 | 1 | 1 (4) | 1 | 1 | 0 |"),
            std::string::npos)
      << format_import_result(*r);
}

TEST_F(Import, AgainAddsNothingAndAChangedFileIsANewVersion) {
  const std::string run = dir_ + "/runs/toy_run";
  fs::create_directories(dir_ + "/runs");
  fs::copy(kFixture + "/runs/toy_run", run, fs::copy_options::recursive);
  auto o = toy_options(out());
  o.sources = {run};
  ASSERT_TRUE(import_kernelbench(o));
  auto again = import_kernelbench(o);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->runs[0].added, 0);
  EXPECT_EQ(again->runs[0].already, 6);
  EXPECT_EQ(imported_records(out()).size(), 6u);

  std::ofstream(run + "/level_1_problem_2_sample_0_kernel.py", std::ios::app) << "# edited\n";
  auto edited = import_kernelbench(o);
  ASSERT_TRUE(edited);
  EXPECT_EQ(edited->runs[0].added, 1);
  auto rs = imported_records(out());
  ASSERT_EQ(rs.size(), 7u);
  const auto& v2 = rs.back();
  EXPECT_EQ(v2.problem.name, "2_Row_Sum");
  EXPECT_EQ(v2.turn, 2);
  EXPECT_EQ(v2.source->path, "sources/toy_run__level_1_problem_2_sample_0_kernel__v2.py");
  EXPECT_EQ(nlohmann::json::parse(*read_file(out() + "/run.json"))["imports"].size(), 3u);
}

TEST_F(Import, AFolderOfRunsIncludingTheOlderFormat) {
  auto o = toy_options(out());
  o.sources = {kFixture + "/runs"};
  auto r = import_kernelbench(o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 2u);
  EXPECT_EQ(r->runs[0].name, "old_run");
  EXPECT_EQ(r->runs[0].solutions, 2);
  EXPECT_EQ(r->runs[0].claimed_correct, 1);
  EXPECT_EQ(r->runs[0].claimed_faster, 0);
  EXPECT_EQ(r->runs[1].name, "toy_run");
  auto rs = imported_records(out());
  ASSERT_EQ(rs.size(), 8u);
  const corpus::Record* old_relu = nullptr;
  for (const auto& x : rs)
    if (x.config == "old_run" && x.problem.name == "1_ReLU_Squared") old_relu = &x;
  ASSERT_TRUE(old_relu);
  EXPECT_DOUBLE_EQ(*old_relu->claim->speedup, 0.5);
  EXPECT_EQ(old_relu->sample, 0);
}

TEST_F(Import, SingleSolutionFilesNeedTheirProblem) {
  ImportOptions o;
  o.out = out();
  o.sources = {kFixture + "/runs/toy_run/level_1_problem_3_sample_1_kernel.py"};
  auto missing = import_kernelbench(o);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "import.problem");
  o.problem = kFixture + "/kernelbench/level1/3_Scale_Shift.py";
  o.name = "hand_picked";
  auto r = import_kernelbench(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->runs[0].name, "hand_picked");
  auto rs = imported_records(out());
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].problem.name, "3_Scale_Shift");
  EXPECT_EQ(rs[0].sample, 1);
  EXPECT_FALSE(rs[0].claimed_correct());  // a file alone claims nothing
}

TEST_F(Import, BadSourcesAreUsageErrors) {
  auto code = [&](ImportOptions o) {
    auto r = import_kernelbench(o);
    return r ? std::string("ok") : r.error().code;
  };
  auto o = toy_options(out());
  o.sources = {dir_ + "/nowhere"};
  EXPECT_EQ(code(o), "import.source");
  o.sources = {kFixture + "/kernelbench"};  // a dataset, not a run
  EXPECT_EQ(code(o), "import.not_a_run");
  o = toy_options(out());
  o.kernelbench.clear();
  EXPECT_EQ(code(o), "import.kernelbench");
  o = toy_options(out());
  o.baseline = kFixture + "/runs/toy_run/level_1_problem_1_sample_0_kernel.py";
  EXPECT_EQ(code(o), "import.baseline");
  o = toy_options(out());
  o.sources = {kFixture + "/runs"};
  o.name = "one_name";
  EXPECT_EQ(code(o), "import.name");

  const std::string mixed = dir_ + "/mixed";
  fs::create_directories(mixed);
  fs::copy_file(kFixture + "/runs/toy_run/level_1_problem_1_sample_0_kernel.py",
                mixed + "/level_1_problem_1_sample_0_kernel.py");
  fs::copy_file(kFixture + "/runs/toy_run/level_1_problem_1_sample_0_kernel.py",
                mixed + "/level_2_problem_1_sample_0_kernel.py");
  o = toy_options(out());
  o.sources = {mixed};
  EXPECT_EQ(code(o), "import.levels");
  o.level = 1;
  EXPECT_EQ(code(o), "ok");
  EXPECT_FALSE(fs::exists(dir_ + "/nowhere"));
}

TEST_F(Import, LinksAreNotFollowedAndSourcesNeverOverwriteEachOther) {
  const std::string solution = kFixture + "/runs/toy_run/level_1_problem_1_sample_0_kernel.py";
  for (const char* name : {"a b", "a_b"}) {
    const std::string run = dir_ + "/" + name;
    fs::create_directories(run);
    fs::copy_file(solution, run + "/level_1_problem_1_sample_0_kernel.py");
    fs::create_symlink(solution, run + "/level_1_problem_1_sample_1_kernel.py");
  }
  auto o = toy_options(out());
  o.sources = {dir_ + "/a b", dir_ + "/a_b"};
  auto r = import_kernelbench(o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->runs.size(), 2u);
  EXPECT_EQ(r->runs[0].solutions, 1);  // the link is ignored
  auto rs = imported_records(out());
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_NE(rs[0].source->path, rs[1].source->path);
  for (const auto& x : rs) EXPECT_EQ(sha256_hex(*read_file(out() + "/" + x.source->path)), x.source->sha256);
}

TEST_F(Import, NotIntoACampaignFolder) {
  fs::create_directories(out());
  std::ofstream(out() + "/run.json") << R"({"run_id": "run-x", "inputs": {"configs": {"a": {}}, "problems": {}}})";
  auto r = import_kernelbench(toy_options(out()));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "import.campaign_folder");
}

}  // namespace
}  // namespace kf::agent
