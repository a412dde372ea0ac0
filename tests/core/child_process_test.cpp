// core/child_process.h: ordinary children through Boost.Process, with real processes.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/child_process.h"

namespace kf {
namespace {

ChildCommand sh(const std::string& script) { return ChildCommand{{"sh", "-c", script}, {}, false, "", 0}; }

TEST(ChildProcess, CapturesMergedOutputAndExitCode) {
  auto r = run_captured(sh("echo out; echo err >&2; exit 3"), 30, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, CapturedRun::Status::exited);
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_NE(r->output.find("out"), std::string::npos);
  EXPECT_NE(r->output.find("err"), std::string::npos);
  EXPECT_FALSE(r->truncated);
}

TEST(ChildProcess, CapsOutput) {
  auto r = run_captured(sh("yes kforge | head -c 100000"), 30, 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->output.size(), 1000u);
  EXPECT_TRUE(r->truncated);
}

TEST(ChildProcess, TimeoutKillsTheWholeGroup) {
  // The grandchild holds the pipe open; the call still returns, and the group is gone.
  auto r = run_captured(sh("sleep 300 & sleep 300"), 0.3, 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, CapturedRun::Status::timeout);
}

TEST(ChildProcess, CapturedChildInheritsOnlyStdio) {
  const int fd = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: would leak without the child's cleanup
  ASSERT_GE(fd, 3);
  auto r = run_captured(sh("ls /proc/self/fd"), 30, 1000);
  ::close(fd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // 0, 1, 2 and the descriptor ls opens to list the folder.
  EXPECT_EQ(r->output, "0\n1\n2\n3\n");
}

TEST(ChildProcess, ReportsASignal) {
  auto r = run_captured(sh("kill -TERM $$"), 30, 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, CapturedRun::Status::signaled);
  EXPECT_EQ(r->signal, SIGTERM);
}

TEST(ChildProcess, EnvironmentAndWorkdir) {
  ChildCommand c = sh("printf '%s %s' \"$KF_CHILD_TEST\" \"$(pwd)\"");
  c.env["KF_CHILD_TEST"] = "hello";
  c.workdir = "/";
  auto r = run_captured(c, 30, 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->output, "hello /");
  c.replace_environment = true;
  c.env = {{"PATH", "/usr/bin:/bin"}};
  c.argv = {"/bin/sh", "-c", "printf '[%s]' \"$HOME\""};
  r = run_captured(c, 30, 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->output, "[]");
}

TEST(ChildProcess, MissingProgramIsAnErrorNamingIt) {
  auto r = run_captured(ChildCommand{{"kforge-no-such-program"}, {}, false, "", 0}, 30, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("kforge-no-such-program"), std::string::npos);
  auto a = run_attached(ChildCommand{{"kforge-no-such-program"}, {}, false, "", 0}, false);
  ASSERT_FALSE(a.ok());
}

TEST(ChildProcess, AttachedReturnsTheStatus) {
  auto a = run_attached(sh("exit 7"), true);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a, 7);
  a = run_attached(sh("kill -KILL $$"), false);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 128 + SIGKILL);
}

TEST(ChildProcess, BackgroundChildWritesItsFilesAndStops) {
  const auto dir = std::filesystem::temp_directory_path() / ("kforge-child-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string();
  const std::string err = (dir / "err").string();
  auto child = BackgroundChild::start(sh("echo started; echo warn >&2; exec sleep 300"), out, err);
  ASSERT_TRUE(child.ok()) << child.error().message;
  // The shell writes both lines before it becomes `sleep`; wait for them (no time limit: ctest's applies).
  const auto size_of = [](const std::string& p) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(p, ec);
    return ec ? 0 : n;
  };
  while (size_of(out) < 8 || size_of(err) < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE((*child)->running());
  (*child)->stop();
  EXPECT_FALSE((*child)->running());
  std::stringstream o, e;
  o << std::ifstream(out).rdbuf();
  e << std::ifstream(err).rdbuf();
  EXPECT_EQ(o.str(), "started\n");
  EXPECT_EQ(e.str(), "warn\n");
  (*child)->stop();  // twice is fine
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kf
