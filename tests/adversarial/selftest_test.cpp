// CI acceptance of the sandbox issue: `kforge selftest --backend host` passes every case, leaves no
// process of a job running and writes nothing outside job folders.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/command.h"

namespace fs = std::filesystem;

namespace {

using kf::testing::kNoTorchAdvice;
using kf::testing::python_with_torch;

// Entries of `dir` whose names start with one of the prefixes (other tests may use /tmp meanwhile).
std::set<std::string> entries(const std::string& dir, const std::vector<std::string>& prefixes) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    for (const auto& p : prefixes)
      if (n.rfind(p, 0) == 0) out.insert(n);
  }
  return out;
}

int processes_mentioning(const std::string& marker) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.find(marker) != std::string::npos) ++n;
  }
  return n;
}

TEST(Selftest, HostBackendPassesEveryCaseAndLeavesNothingBehind) {
  const std::string python = python_with_torch();
  ASSERT_FALSE(python.empty()) << kNoTorchAdvice;
  char tmpl[] = "/tmp/kf-selftest-work-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string work = tmpl;
  const std::string cache = std::string(KFORGE_TEST_BINARY_DIR) + "/selftest-cache";
  const std::vector<std::string> prefixes = {"kforge-selftest", "pwned"};
  const auto tmp_before = entries("/tmp", prefixes);
  const auto shm_before = entries("/dev/shm", {""});

  const std::string cmd = std::string(KFORGE_TEST_BINARY_DIR) + "/kforge selftest --backend host --json --python " +
                          python + " --work-root " + work + " --cache-dir " + cache + " --suite " +
                          KFORGE_TEST_SOURCE_DIR + "/tests/adversarial 2>" + work + "/selftest.log";
  const auto ran = ::kf::testing::run_shell(cmd);
  const std::string& out = ran.out;

  const auto report = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << "not JSON: " << out.substr(0, 2000);
  for (const auto& c : report["cases"])
    EXPECT_TRUE(c["ok"].get<bool>() || c["xfail"].get<bool>())
        << c["case"] << ": expected " << c["expected"] << ", got " << c["got"] << " — " << c["note"];
  EXPECT_TRUE(report["canary_intact"].get<bool>()) << report["canary_note"];
  EXPECT_GE(report["cases"].size(), 30u);
  EXPECT_EQ(ran.exit_code, 0);

  // No process of any job (they all run with the work root in their command line or cwd) survives.
  EXPECT_EQ(processes_mentioning(work), 0);
  // Nothing written outside job folders.
  EXPECT_EQ(entries("/tmp", prefixes), tmp_before);
  EXPECT_EQ(entries("/dev/shm", {""}).count("kforge-selftest-pwned"), 0u);
  EXPECT_EQ(shm_before.count("kforge-selftest-pwned"), 0u);
  EXPECT_FALSE(fs::exists("/var/tmp/kforge-selftest-pwned"));
  EXPECT_FALSE(fs::exists("/tmp/kforge-selftest-canary"));
  std::error_code ec;
  fs::remove_all(work, ec);
}

}  // namespace
