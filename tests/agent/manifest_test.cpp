// The run manifest's owner (agent/campaign/manifest.h): a campaign's inputs written, compared on resume, merged
// across sessions and shards; imports and the environment recorded; the folder read back for `kforge status`.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "agent/campaign/manifest.h"
#include "core/files.h"

namespace kf::agent {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kforge_manifest_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  json on_disk() const { return json::parse(*read_file((dir_ / "run.json").string())); }
  std::string dir() const { return dir_.string(); }
  fs::path dir_;
};

CampaignInputs inputs() {
  CampaignInputs in;
  in.backend = "host";
  in.prompts_sha256 = "all-templates";
  ConfigInputs& a = in.configs["a"];
  a.path = "/c/a.yaml";
  a.sha256 = "a1";
  a.candidate_format = "kf_forward";
  a.samples = 2;
  a.prompts_sha256 = "pa";
  a.turns = 3;
  in.problems["19_ReLU"] = {.path = "/p/19_ReLU.py", .sha256 = "r1"};
  return in;
}

ImportEntry import_of(const std::string& source) {
  ImportEntry e;
  e.sources = {source};
  return e;
}

TEST_F(ManifestTest, ANewFolderGetsARunIdAndItsInputsAsTheyWereGiven) {
  auto s = begin_session(dir(), inputs(), false, "");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->session, 1);
  EXPECT_TRUE(s->run_id.starts_with("run-"));
  EXPECT_TRUE(s->changes.empty());
  const json m = on_disk();
  EXPECT_EQ(m["run_id"], s->run_id);
  EXPECT_EQ(m["sessions"], 1);
  EXPECT_EQ(m["inputs"], json::parse(R"({"backend": "host", "prompts_sha256": "all-templates",
    "configs": {"a": {"path": "/c/a.yaml", "sha256": "a1", "candidate_format": "kf_forward", "samples": 2,
                      "prompts_sha256": "pa", "turns": 3, "stop_at_first_correct": true, "keep_last_attempts": 0}},
    "problems": {"19_ReLU": {"path": "/p/19_ReLU.py", "sha256": "r1"}}})"));
}

TEST_F(ManifestTest, SettingsAreRecordedOnlyWhenSetSoOlderFoldersResumeUnchanged) {
  CampaignInputs in = inputs();
  in.configs["a"].stop_at_peak_fraction = 0.5;
  in.configs["a"].baseline = "compile";
  ASSERT_TRUE(begin_session(dir(), in, false, ""));
  EXPECT_EQ(on_disk()["inputs"]["configs"]["a"]["stop_at_peak_fraction"], 0.5);
  EXPECT_EQ(on_disk()["inputs"]["configs"]["a"]["baseline"], "compile");
}

TEST_F(ManifestTest, ASecondSessionKeepsTheRunIdAndAddsNewNames) {
  auto first = begin_session(dir(), inputs(), false, "1/2");
  ASSERT_TRUE(first);
  CampaignInputs more = inputs();
  more.problems["20_LeakyReLU"] = {.path = "/p/20.py", .sha256 = "l1"};
  auto second = begin_session(dir(), more, false, "2/2");
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->run_id, first->run_id);
  EXPECT_EQ(second->session, 2);
  EXPECT_EQ(on_disk()["shards"], json::parse(R"({"1/2": 1, "2/2": 2})"));
  auto read = RunManifest::read(dir());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->run_id, first->run_id);
  EXPECT_EQ(read->config_samples, (std::map<std::string, int>{{"a", 2}}));
  EXPECT_EQ(read->problems, (std::vector<std::string>{"19_ReLU", "20_LeakyReLU"}));
}

TEST_F(ManifestTest, ChangedInputsAreRefusedUnlessAllowedAndThenLogged) {
  ASSERT_TRUE(begin_session(dir(), inputs(), false, ""));
  CampaignInputs changed = inputs();
  changed.configs["a"].turns = 4;
  changed.problems["19_ReLU"].sha256 = "r2";
  auto refused = begin_session(dir(), changed, false, "");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "manifest.changed");
  EXPECT_NE(refused.error().message.find("configuration 'a': turns was 3, now 4"), std::string::npos);
  EXPECT_NE(refused.error().message.find("problem '19_ReLU' changed (/p/19_ReLU.py)"), std::string::npos);
  EXPECT_EQ(on_disk()["sessions"], 1);  // a refused session changes nothing

  auto allowed = begin_session(dir(), changed, true, "");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->changes.size(), 2u);
  EXPECT_EQ(on_disk()["changes"].size(), 1u);
  EXPECT_EQ(on_disk()["inputs"]["configs"]["a"]["turns"], 4);
}

TEST_F(ManifestTest, EnvironmentAndImportsAreRecorded) {
  ASSERT_TRUE(begin_session(dir(), inputs(), false, ""));
  ASSERT_TRUE(record_environment(dir(), corpus::Environment{"0.1", "host", "", "", "2.1", ""},
                                 {corpus::EvaluatorRef{0, std::nullopt, "", ""}}));
  EXPECT_EQ(on_disk()["environment_last"]["torch"], "2.1");
  EXPECT_EQ(on_disk()["environment_last"]["evaluators"].size(), 1u);
  // A campaign's folder takes no imports.
  auto refused = record_import(dir(), import_of("/runs/x"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "import.campaign_folder");
}

TEST_F(ManifestTest, AnImportFolderListsItsImports) {
  ImportEntry x = import_of("/runs/x");
  x.level = 1;
  auto first = record_import(dir(), x);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->number, 1);
  EXPECT_TRUE(first->run_id.starts_with("import-"));
  ImportEntry y = import_of("/runs/y");
  y.kernelbench = "/kb";
  auto second = record_import(dir(), y);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->number, 2);
  const json imports = on_disk()["imports"];
  ASSERT_EQ(imports.size(), 2u);
  EXPECT_EQ(imports[0]["sources"], json::array({"/runs/x"}));
  EXPECT_EQ(imports[0]["level"], 1);
  EXPECT_TRUE(imports[1]["level"].is_null());
  EXPECT_EQ(imports[1]["kernelbench"], "/kb");
  EXPECT_TRUE(imports[1]["at"].is_string());
  auto read = RunManifest::read(dir());
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->config_samples.empty());
}

TEST_F(ManifestTest, AFolderWithoutAReadableManifestIsAnError) {
  EXPECT_FALSE(RunManifest::read(dir()));
  ASSERT_TRUE(write_file_atomic((dir_ / "run.json").string(), "not json").ok());
  auto read = RunManifest::read(dir());
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, "manifest.unreadable");
  EXPECT_FALSE(begin_session(dir(), inputs(), false, ""));
}

}  // namespace
}  // namespace kf::agent
