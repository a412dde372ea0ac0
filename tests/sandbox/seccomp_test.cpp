// The runner's seccomp filter: each denied call fails (EPERM/ENOSYS) or kills the process, from a
// thread that existed before the filter (TSYNC), while threads, files and existing sockets work.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace {

struct ProbeResult {
  std::string output;
  int status = 0;
};

ProbeResult probe(const std::string& call) {
  const std::string cmd = "exec " + std::string(SECCOMP_PROBE) + " " + call;
  ProbeResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 256> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  r.status = ::pclose(p);
  return r;
}

class Denied : public ::testing::TestWithParam<const char*> {};

TEST_P(Denied, CallFailsOrKills) {
  const auto r = probe(GetParam());
  const bool killed = WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGSYS;
  const bool refused = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.output.rfind("denied", 0) == 0;
  EXPECT_TRUE(killed || refused) << GetParam() << ": " << r.output << " status " << r.status;
}

INSTANTIATE_TEST_SUITE_P(Runner, Denied,
                         ::testing::Values("ptrace", "process_vm_readv", "socket_inet", "socket_unix",
                                           "socketpair", "fork", "libc_fork", "clone_process", "clone3",
                                           "execve", "mount", "unshare", "setns", "bpf", "perf_event_open",
                                           "keyctl", "personality", "kexec_load", "io_uring_setup"));

class Allowed : public ::testing::TestWithParam<const char*> {};

TEST_P(Allowed, CallStillWorks) {
  const auto r = probe(GetParam());
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  EXPECT_EQ(r.output, "allowed\n") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Runner, Allowed, ::testing::Values("thread", "open", "existing_socket"));

}  // namespace
