// The launcher's limits and isolation, each checked by running a small job.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "sandbox/launcher.h"

namespace fs = std::filesystem;
using kf::sandbox::Outcome;
using kf::sandbox::Spec;

namespace {

class Launcher : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kf-sandbox-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Spec spec(std::vector<std::string> argv) const {
    Spec s;
    s.argv = std::move(argv);
    s.env = {{"PATH", "/usr/bin:/bin"}};
    s.workdir = dir_;
    s.readonly_paths = {SANDBOX_PROBE};
    s.limits.wall_s = 20;
    return s;
  }
  Outcome run(const Spec& s) const {
    auto r = kf::sandbox::run(s);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : Outcome{};
  }
  Outcome sh(const std::string& script) const { return run(spec({"/bin/sh", "-c", script})); }
  std::string dir_;
};

// Processes anywhere on the machine whose command line contains `marker`.
int processes_with(const std::string& marker) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : cmd)
      if (c == 0) c = ' ';
    if (cmd.find(marker) != std::string::npos && cmd.find("sh -c") == std::string::npos) ++n;
  }
  return n;
}

TEST_F(Launcher, CapturesOutputAndExitCode) {
  const auto o = sh("echo out; echo err >&2; exit 7");
  EXPECT_EQ(o.status, Outcome::Status::exited);
  EXPECT_EQ(o.exit_code, 7);
  EXPECT_EQ(o.stdout_text, "out\n");
  EXPECT_EQ(o.stderr_text, "err\n");
  EXPECT_TRUE(o.tree_empty_after);
}

TEST_F(Launcher, ReportsTheSignal) {
  const auto o = sh("kill -SEGV $$");
  EXPECT_EQ(o.status, Outcome::Status::signaled);
  EXPECT_EQ(o.signal, SIGSEGV);
}

TEST_F(Launcher, FeedsStdin) {
  auto s = spec({"/bin/cat"});
  s.stdin_data = std::string(200000, 'x');  // larger than a pipe buffer
  const auto o = run(s);
  EXPECT_EQ(o.stdout_text.size(), 200000u);
}

TEST_F(Launcher, CapsOutputToTheExactByteCount) {
  auto s = spec({"/bin/sh", "-c", "head -c 300000 /dev/zero; head -c 10 /dev/zero >&2"});
  s.limits.output_bytes = 1000;
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::exited);
  EXPECT_EQ(o.stdout_text.size(), 1000u);
  EXPECT_TRUE(o.stdout_truncated);
  EXPECT_EQ(o.stderr_text.size(), 10u);
  EXPECT_FALSE(o.stderr_truncated);
}

TEST_F(Launcher, MissingProgramIsALaunchFailure) {
  const auto o = run(spec({"/nonexistent/program"}));
  EXPECT_EQ(o.status, Outcome::Status::launch_failed);
  EXPECT_FALSE(o.launch_error.empty());
}

TEST_F(Launcher, RejectsABadSpec) {
  auto s = spec({"/bin/true"});
  s.workdir = dir_ + "/missing";
  EXPECT_FALSE(kf::sandbox::run(s).ok());
  s = spec({});
  EXPECT_FALSE(kf::sandbox::run(s).ok());
}

TEST_F(Launcher, WallTimeoutKillsTheWholeTree) {
  auto s = spec({SANDBOX_PROBE, "tree", "3117"});
  s.limits.wall_s = 1;
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::timeout);
  EXPECT_TRUE(o.tree_empty_after);
  EXPECT_EQ(processes_with("sleep 3117"), 0);
}

TEST_F(Launcher, DescendantsLeftBehindAreKilledAtTheEnd) {
  const auto o = run(spec({SANDBOX_PROBE, "tree", "3118", "exit"}));
  EXPECT_EQ(o.status, Outcome::Status::exited);
  EXPECT_TRUE(o.tree_empty_after);
  EXPECT_EQ(processes_with("sleep 3118"), 0);
}

TEST_F(Launcher, WithoutNamespacesTheTreeIsStillKilled) {
  auto s = spec({SANDBOX_PROBE, "tree", "3119"});
  s.namespaces = false;
  s.limits.wall_s = 1;
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::timeout);
  EXPECT_FALSE(o.missing_protections.empty());
  EXPECT_TRUE(o.tree_empty_after);
  EXPECT_EQ(processes_with("sleep 3119"), 0);
}

TEST_F(Launcher, CpuLimitStopsABusyLoop) {
  auto s = spec({"/bin/sh", "-c", "while :; do :; done"});
  s.limits.cpu_s = 1;
  s.limits.wall_s = 30;
  const auto o = run(s);
  EXPECT_NE(o.status, Outcome::Status::exited);
  EXPECT_TRUE(o.cpu_limit_hit);
  EXPECT_LT(o.wall_s, 30);
}

TEST_F(Launcher, ClosesInheritedDescriptorsButKeepsPassFds) {
  // No O_CLOEXEC: would leak without the sandbox. Numbered high so `ls` cannot reuse it.
  const int opened = ::open("/dev/null", O_RDONLY);
  const int leaked = ::fcntl(opened, F_DUPFD, 40);
  ::close(opened);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  auto s = spec({"/bin/sh", "-c", "ls /proc/self/fd; echo via-pass-fd >&" + std::to_string(p[1])});
  s.pass_fds = {p[1]};
  const auto o = run(s);
  ::close(p[1]);
  char buf[64] = {0};
  ASSERT_GT(::read(p[0], buf, sizeof buf - 1), 0);
  EXPECT_EQ(std::string(buf), "via-pass-fd\n");
  std::istringstream lines(o.stdout_text);
  std::string fd;
  std::set<std::string> fds;
  while (lines >> fd) fds.insert(fd);
  EXPECT_FALSE(fds.count(std::to_string(leaked))) << o.stdout_text;
  EXPECT_TRUE(fds.count(std::to_string(p[1]))) << o.stdout_text;
  ::close(leaked);
  ::close(p[0]);
}

TEST_F(Launcher, EnvironmentIsExactlyTheAllowlist) {
  ::setenv("KF_SANDBOX_TEST_SECRET", "leak", 1);
  auto s = spec({"/usr/bin/env"});
  s.env["ONLY_THIS"] = "1";
  const auto o = run(s);
  EXPECT_EQ(o.stdout_text.find("KF_SANDBOX_TEST_SECRET"), std::string::npos);
  EXPECT_NE(o.stdout_text.find("ONLY_THIS=1\n"), std::string::npos);
  EXPECT_NE(o.stdout_text.find("TMPDIR="), std::string::npos);
  std::istringstream lines(o.stdout_text);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) ++count;
  EXPECT_EQ(count, 3) << o.stdout_text;  // PATH, ONLY_THIS, TMPDIR
}

TEST_F(Launcher, NoNetwork) {
  const int server = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(server, 1), 0);
  socklen_t len = sizeof addr;
  ::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  const auto o =
      run(spec({"/bin/bash", "-c", "echo hi > /dev/tcp/127.0.0.1/" + std::to_string(port) + " && echo connected"}));
  ::close(server);
  EXPECT_EQ(o.stdout_text.find("connected"), std::string::npos) << o.stderr_text;
  EXPECT_NE(o.exit_code, 0);
}

TEST_F(Launcher, PrivateTmpAndNoHostFiles) {
  const std::string secret = "/tmp/kf-sandbox-secret-" + std::to_string(::getpid());
  std::ofstream(secret) << "secret";
  const auto o = sh("cat " + secret +
                    "; ls /tmp; echo mine > /tmp/written-by-job; cat /etc/shadow;"
                    " ls /root /work /home; echo ok-end");
  EXPECT_EQ(o.stdout_text.find("secret"), std::string::npos) << o.stdout_text;
  EXPECT_NE(o.stdout_text.find("ok-end"), std::string::npos);
  EXPECT_FALSE(fs::exists("/tmp/written-by-job"));
  fs::remove(secret);
}

TEST_F(Launcher, JobFolderIsWritableAndOnlyIt) {
  const auto o = sh("echo data > result.txt && touch /usr/x /etc/x / 2>/dev/null; echo done");
  EXPECT_EQ(o.stdout_text, "done\n");
  std::ifstream in(dir_ + "/result.txt");
  std::string data;
  in >> data;
  EXPECT_EQ(data, "data");
  EXPECT_FALSE(fs::exists("/usr/x"));
}

TEST_F(Launcher, ProcessCap) {
  auto s = spec({SANDBOX_PROBE, "forkbomb"});
  s.limits.processes = 20;
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::exited);
  EXPECT_LT(std::stoi(o.stdout_text), 20);
  EXPECT_TRUE(o.tree_empty_after);
}

TEST_F(Launcher, MemoryLimitThroughTheCgroup) {
  auto s = spec({SANDBOX_PROBE, "memhog", "512"});
  s.limits.memory_bytes = 64ull << 20;
  const auto o = run(s);
  for (const auto& m : o.missing_protections)
    if (m.find("memory") != std::string::npos) GTEST_SKIP() << m;
  EXPECT_EQ(o.status, Outcome::Status::signaled);
  EXPECT_TRUE(o.memory_limit_hit);
  EXPECT_GT(o.peak_memory_bytes, 32ull << 20);
}

TEST_F(Launcher, JobTalksThroughPassFdsWhileRunning) {
  int to_job[2], from_job[2];
  ASSERT_EQ(::pipe2(to_job, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(from_job, O_CLOEXEC), 0);
  // The job echoes one line back from its command descriptor to its report descriptor.
  auto s = spec({"/bin/sh", "-c",
                 "read line <&" + std::to_string(to_job[0]) + "; echo \"got $line\" >&" + std::to_string(from_job[1]) +
                     "; sleep 300"});
  s.pass_fds = {to_job[0], from_job[1]};
  auto job = kf::sandbox::Job::start(s);
  ASSERT_TRUE(job.ok()) << job.error().message;
  ::close(to_job[0]);
  ::close(from_job[1]);
  ASSERT_EQ(::write(to_job[1], "ping\n", 5), 5);
  char buf[32] = {0};
  ASSERT_GT(::read(from_job[0], buf, sizeof buf - 1), 0);
  EXPECT_EQ(std::string(buf), "got ping\n");
  EXPECT_FALSE(job->finished());
  job->kill();
  const auto o = job->wait();
  EXPECT_EQ(o.status, Outcome::Status::signaled);
  EXPECT_TRUE(o.tree_empty_after);
  ::close(to_job[1]);
  ::close(from_job[0]);
}

TEST_F(Launcher, JobFolderInDevShmWithSymlinkedReadonlyPath) {
  char tmpl[] = "/dev/shm/kf-sandbox-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string shm_dir = tmpl;
  const std::string link = dir_ + "/link-to-probe-dir";
  fs::create_directory_symlink(fs::path(SANDBOX_PROBE).parent_path(), link);
  auto s =
      spec({"/bin/sh", "-c", "echo in-shm > out.txt; ls /dev/shm; test -x " + link + "/sandbox_probe && echo visible"});
  s.workdir = shm_dir;
  s.readonly_paths = {link};
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::exited);
  EXPECT_NE(o.stdout_text.find("visible"), std::string::npos) << o.stdout_text << o.stderr_text;
  EXPECT_NE(o.stdout_text.find(fs::path(shm_dir).filename().string()), std::string::npos);
  EXPECT_TRUE(fs::exists(shm_dir + "/out.txt"));
  fs::remove_all(shm_dir);
}

TEST_F(Launcher, ProgramOutsideSystemDirsIsVisibleWithoutListingIt) {
  auto s = spec({SANDBOX_PROBE, "socket"});
  s.readonly_paths.clear();
  const auto o = run(s);
  EXPECT_EQ(o.status, Outcome::Status::exited) << o.launch_error;
}

TEST_F(Launcher, NamespacesAreInPlaceOnThisMachine) {
  const auto o = sh("true");
  for (const auto& m : o.missing_protections) ADD_FAILURE() << "missing: " << m;  // root here and in CI
}

}  // namespace
