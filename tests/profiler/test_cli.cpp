// Runs the kforge binary's `profile --from-records` and `project` on the fixtures.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "tests/support/command.h"

namespace {

const std::string kKforge = KFORGE_TEST_BINARY_DIR "/kforge";
const std::string kFixtures = KFORGE_TEST_SOURCE_DIR "/tests/profiler/fixtures";

struct Outcome {
  int status = -1;
  std::string output;
};

Outcome run(const std::string& args) {
  const auto r = ::kf::testing::run_shell(kKforge + " " + args + " 2>&1");
  return {r.exit_code, r.out};
}
}  // namespace

TEST(ProfilerCli, ProfileFromRecordsWritesTheBreakdown) {
  const std::string out = std::string(KFORGE_TEST_BINARY_DIR) + "/profiler-cli-test.json";
  const Outcome o =
      run("profile --from-records " + kFixtures + "/records --rules " + kFixtures + "/rules.json --out " + out);
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("addressable fraction"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("20.0%"), std::string::npos) << o.output;
  auto text = kf::read_file(out);
  ASSERT_TRUE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  EXPECT_DOUBLE_EQ(j["addressable_fraction"].get<double>(), 0.2);
  EXPECT_EQ(j["region_source"], "nvtx");
  EXPECT_EQ(j["kernel_count"], 3);
  std::filesystem::remove(out);
}

TEST(ProfilerCli, ProjectPrintsTheHandComputedProjection) {
  const Outcome o = run("project --profile " + kFixtures + "/profile.json --run " + kFixtures + "/corpus --rules " +
                        kFixtures + "/rules.json --config A");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("projected time reduction 7.000%"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("S = 1.0753x"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("1.5385x"), std::string::npos) << o.output;
}

TEST(ProfilerCli, BadUsageIsExitCodeTwoWithAReason) {
  Outcome o = run("profile --rules " + kFixtures + "/rules.json --inject-lib /nonexistent.so");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("nothing to profile"), std::string::npos) << o.output;
  o = run("project --profile " + kFixtures + "/profile.json --run " + kFixtures + "/no-such-run");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("evaluations.jsonl"), std::string::npos) << o.output;
  o = run("project --profile " + kFixtures + "/corpus/evaluations.jsonl --run " + kFixtures + "/corpus");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("not a kforge profile"), std::string::npos) << o.output;
  o = run("project --profile " + kFixtures + "/profile.json --run " + kFixtures + "/corpus --config nope");
  EXPECT_EQ(o.status, 2) << o.output;
}
