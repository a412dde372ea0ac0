// CI acceptance of the sandbox issue: `kforge selftest --backend host` passes every case, leaves no
// process of a job running and writes nothing outside job folders.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "selftest/selftest.h"
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
  // Another self-test on this machine (another checkout's CI, a run a kill left behind) may own the canary
  // folder when this one starts or ends; with the self-tests' lock held, none does, so what is left is ours.
  const int lock = ::open(kf::selftest::kCanaryLock, O_RDONLY | O_CLOEXEC);
  ASSERT_GE(lock, 0) << "the self-test did not create " << kf::selftest::kCanaryLock;
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  // Nothing written outside job folders: no entry that was not there before (one may have gone: a canary
  // an interrupted self-test left, which this one replaced and removed).
  std::set<std::string> new_entries;
  const auto tmp_after = entries("/tmp", prefixes);
  std::set_difference(tmp_after.begin(), tmp_after.end(), tmp_before.begin(), tmp_before.end(),
                      std::inserter(new_entries, new_entries.end()));
  EXPECT_EQ(new_entries, std::set<std::string>{});
  EXPECT_EQ(entries("/dev/shm", {""}).count("kforge-selftest-pwned"), 0u);
  EXPECT_EQ(shm_before.count("kforge-selftest-pwned"), 0u);
  EXPECT_FALSE(fs::exists("/var/tmp/kforge-selftest-pwned"));
  EXPECT_FALSE(fs::exists(kf::selftest::kCanaryDir));
  ::close(lock);
  std::error_code ec;
  fs::remove_all(work, ec);
}

TEST(Selftest, SelftestsOnOneMachineTakeTurnsWithTheCanary) {
  const std::string python = python_with_torch();
  ASSERT_FALSE(python.empty()) << kNoTorchAdvice;
  char tmpl[] = "/tmp/kf-selftest-turns-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string work = tmpl;
  const std::string log = work + "/selftest.log";

  // This test holds the lock as another self-test would while it owns the canary.
  const int lock = ::open(kf::selftest::kCanaryLock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);

  kf::testing::CommandResult ran;
  std::atomic<bool> ended = false;
  std::thread selftest([&] {
    ran = ::kf::testing::run_shell(std::string(KFORGE_TEST_BINARY_DIR) + "/kforge selftest --backend host --json " +
                                   "--only host/honest_tiny_ref --python " + python + " --work-root " + work +
                                   " --cache-dir " + KFORGE_TEST_BINARY_DIR + "/selftest-cache --suite " +
                                   KFORGE_TEST_SOURCE_DIR + "/tests/adversarial 2>" + log);
    ended = true;
  });
  // It says that it waits, and plants nothing meanwhile (no deadline here: ctest's timeout is the limit).
  while (!ended && kf::testing::slurp(log).find("waiting for it") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(ended) << "the self-test ran without waiting for the lock: " << kf::testing::slurp(log);
  EXPECT_FALSE(fs::exists(kf::selftest::kCanaryDir));
  ::close(lock);
  selftest.join();

  EXPECT_EQ(ran.exit_code, 0) << ran.out << kf::testing::slurp(log);
  const auto report = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << ran.out;
  EXPECT_EQ(report["cases"].size(), 1u);
  EXPECT_TRUE(report["canary_intact"].get<bool>()) << report["canary_note"];
  std::error_code ec;
  fs::remove_all(work, ec);
}

}  // namespace
