// The runner's seccomp filter: each denied call fails (EPERM/ENOSYS) or kills the process, from a
// thread that existed before the filter (TSYNC), while threads, files and existing sockets work.
#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/child_process.h"

namespace {

using kf::CapturedRun;

CapturedRun probe(const std::string& call, const std::string& variant = "") {
  std::vector<std::string> argv = {SECCOMP_PROBE, call};
  if (!variant.empty()) argv.push_back(variant);
  auto r = kf::run_captured(kf::ChildCommand{argv, {}, false, "", 0}, 0, 1 << 16, kf::CaptureMode::stdout_only);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : CapturedRun{};
}

bool exited_zero(const CapturedRun& r) { return r.status == CapturedRun::Status::exited && r.exit_code == 0; }

class Denied : public ::testing::TestWithParam<const char*> {};

TEST_P(Denied, CallFailsOrKills) {
  const auto r = probe(GetParam());
  const bool killed = r.status == CapturedRun::Status::signaled && r.signal == SIGSYS;
  const bool refused = exited_zero(r) && r.output.rfind("denied", 0) == 0;
  EXPECT_TRUE(killed || refused) << GetParam() << ": " << r.output << " exit " << r.exit_code << " signal " << r.signal;
}

INSTANTIATE_TEST_SUITE_P(Runner, Denied,
                         ::testing::Values("ptrace", "process_vm_readv", "socket_inet", "socket_unix", "socketpair",
                                           "fork", "libc_fork", "clone_process", "clone3", "execve", "mount", "unshare",
                                           "setns", "bpf", "perf_event_open", "keyctl", "personality", "kexec_load",
                                           "io_uring_setup"));

class Allowed : public ::testing::TestWithParam<const char*> {};

TEST_P(Allowed, CallStillWorks) {
  const auto r = probe(GetParam());
  EXPECT_TRUE(exited_zero(r)) << "exit " << r.exit_code << " signal " << r.signal;
  EXPECT_EQ(r.output, "allowed\n") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Runner, Allowed, ::testing::Values("thread", "open", "existing_socket"));

// The variant for python runners whose JIT compilers start processes: children yes, nothing else.
class DeniedWithSubprocesses : public ::testing::TestWithParam<const char*> {};

TEST_P(DeniedWithSubprocesses, CallFailsOrKills) {
  const auto r = probe(GetParam(), "subprocesses");
  const bool killed = r.status == CapturedRun::Status::signaled && r.signal == SIGSYS;
  const bool refused = exited_zero(r) && r.output.rfind("denied", 0) == 0;
  EXPECT_TRUE(killed || refused) << GetParam() << ": " << r.output << " exit " << r.exit_code << " signal " << r.signal;
}

INSTANTIATE_TEST_SUITE_P(Runner, DeniedWithSubprocesses,
                         ::testing::Values("ptrace", "socket_inet", "socketpair", "clone_newuser", "clone3", "mount",
                                           "unshare", "bpf"));

class AllowedWithSubprocesses : public ::testing::TestWithParam<const char*> {};

TEST_P(AllowedWithSubprocesses, CallWorks) {
  const auto r = probe(GetParam(), "subprocesses");
  EXPECT_TRUE(exited_zero(r)) << "exit " << r.exit_code << " signal " << r.signal;
  EXPECT_EQ(r.output, "allowed\n") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Runner, AllowedWithSubprocesses,
                         ::testing::Values("thread", "fork", "libc_fork", "clone_process"));

}  // namespace
