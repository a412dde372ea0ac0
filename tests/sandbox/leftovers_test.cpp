// Nothing of a job outlives kforge: a supervisor killed with SIGKILL while its job is frozen (the cgroup
// freezer) leaves no process, control group or private folder behind, through the guardian; when the guardian
// is killed as well (a whole Slurm job killed), the next sweep takes it all back. Real processes, real signals.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "sandbox/guardian.h"
#include "sandbox/launcher.h"
#include "sandbox/leftovers.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Live processes whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = slurp(e.path() / "cmdline");
    for (auto& c : cmd)
      if (c == 0) c = ' ';
    const std::string stat = slurp(e.path() / "stat");
    const auto close = stat.rfind(')');
    const bool zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    if (!zombie && cmd.find(marker) != std::string::npos) out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

// Control groups anywhere under /sys/fs/cgroup whose name carries `owner`.
std::vector<std::string> groups_of(const std::string& owner) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator("/sys/fs/cgroup", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    if (it->path().filename().string().find("job-" + owner + "-") != std::string::npos) out.push_back(it->path());
  }
  return out;
}

// What the killed supervisor reports before it is killed.
struct Supervised {
  pid_t supervisor = 0;
  int guardian = 0;
  std::string owner, folder;
  bool frozen = false;
};

// Forks a supervisor that starts a job (`marker` in its command line), freezes it, and waits to be killed.
Supervised start_frozen_job(const std::string& workdir, const std::string& marker) {
  int p[2];
  EXPECT_EQ(::pipe(p), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(p[0]);
    kf::sandbox::Spec s;
    s.argv = {"/bin/sh", "-c", "sleep 1000; echo " + marker};
    s.env = {{"PATH", "/usr/bin:/bin"}};
    s.workdir = workdir;
    s.limits.wall_s = 600;
    s.limits.cpu_s = 600;
    auto folder = kf::sandbox::make_owned_folder("/dev/shm", "kforge-eval");
    auto job = kf::sandbox::Job::start(s);
    bool frozen = false;
    for (int i = 0; i < 200 && job.ok(); ++i) {  // until the shell has started its sleep
      if (job->pids().size() >= 3 || (!s.pid_namespace && job->pids().size() >= 2)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (job.ok()) frozen = job->freeze(5.0);
    std::ostringstream msg;
    msg << kf::sandbox::guardian::process_id() << " " << kf::sandbox::owner_tag() << " "
        << (folder.ok() ? *folder : std::string("-")) << " " << frozen << "\n";
    const std::string text = msg.str();
    ssize_t ignored = ::write(p[1], text.data(), text.size());
    (void)ignored;
    for (;;) ::pause();
  }
  ::close(p[1]);
  std::string line;
  char c;
  while (::read(p[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(p[0]);
  Supervised s;
  s.supervisor = child;
  int frozen = 0;
  std::istringstream(line) >> s.guardian >> s.owner >> s.folder >> frozen;
  s.frozen = frozen != 0;
  return s;
}

bool all_gone(const Supervised& s, const std::string& marker) {
  return processes_with(marker).empty() && groups_of(s.owner).empty() && !fs::exists(s.folder);
}

// Waits (up to `limit_s`, a bound for the kernel's work, not a measurement) until nothing is left.
bool wait_all_gone(const Supervised& s, const std::string& marker, double limit_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (std::chrono::steady_clock::now() < until) {
    if (all_gone(s, marker)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return all_gone(s, marker);
}

class Leftovers : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kf-leftovers-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    marker_ = "kf-leftover-marker-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }
  void TearDown() override {
    for (pid_t p : processes_with(marker_)) ::kill(p, SIGKILL);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_, marker_;
};

TEST_F(Leftovers, AFrozenJobDiesWithItsSupervisorKilled) {
  auto s = start_frozen_job(dir_, marker_);
  ASSERT_GT(s.supervisor, 0);
  ASSERT_GT(s.guardian, 0) << "the guardian did not start";
  ASSERT_FALSE(s.owner.empty());
  EXPECT_TRUE(fs::exists(s.folder)) << s.folder;
  EXPECT_FALSE(processes_with(marker_).empty()) << "the job did not start";
  if (!s.frozen) std::cerr << "note: the job could not be frozen here (no freezer); checking the kill alone\n";
  ASSERT_EQ(::kill(s.supervisor, SIGKILL), 0);
  ASSERT_EQ(::waitpid(s.supervisor, nullptr, 0), s.supervisor);
  // Nothing else runs: the guardian alone takes it all back.
  EXPECT_TRUE(wait_all_gone(s, marker_, 20)) << "left: " << processes_with(marker_).size() << " processes, "
                                             << groups_of(s.owner).size() << " groups, folder " << fs::exists(s.folder);
  // Its work done, the guardian exits (a zombie until whoever adopted it reaps it).
  auto guardian_running = [&] {
    const std::string stat = slurp("/proc/" + std::to_string(s.guardian) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
  };
  for (int i = 0; i < 200 && guardian_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(guardian_running()) << "the guardian outlived its work";
}

TEST_F(Leftovers, TheSweepTakesBackWhatAnOwnerAndItsGuardianLeft) {
  auto s = start_frozen_job(dir_, marker_);
  ASSERT_GT(s.supervisor, 0);
  ASSERT_GT(s.guardian, 0);
  // Both killed at once, as a scheduler kills a whole job.
  ASSERT_EQ(::kill(s.guardian, SIGKILL), 0);
  ASSERT_EQ(::kill(s.supervisor, SIGKILL), 0);
  ASSERT_EQ(::waitpid(s.supervisor, nullptr, 0), s.supervisor);
  if (s.frozen)  // on cgroup v1 a frozen job never gets its SIGKILL: it waits for a thaw
    std::cerr << "left before the sweep: " << processes_with(marker_).size() << " processes, "
              << groups_of(s.owner).size() << " groups\n";
  kf::sandbox::sweep_leftovers();
  EXPECT_TRUE(wait_all_gone(s, marker_, 20)) << "left: " << processes_with(marker_).size() << " processes, "
                                             << groups_of(s.owner).size() << " groups, folder " << fs::exists(s.folder);
}

TEST(OwnerTags, NamesOfLiveOwnersAreKeptAndOthersAreNot) {
  const std::string mine = kf::sandbox::owner_tag();
  EXPECT_FALSE(kf::sandbox::owner_gone(mine + "-0"));
  EXPECT_FALSE(kf::sandbox::owner_gone("abcXYZ"));  // an older random name: not kforge's to judge
  EXPECT_FALSE(kf::sandbox::owner_gone("12aBcD"));
  const std::string pid = mine.substr(0, mine.find('.'));
  EXPECT_TRUE(kf::sandbox::owner_gone(pid + ".1-0"));  // this PID, another start time: reused
  EXPECT_TRUE(kf::sandbox::owner_gone("999999999.5-3"));
}

}  // namespace
