// Applies the runner's seccomp filter (with a second argument "subprocesses": the variant that allows child
// processes), then tries one system call FROM A THREAD THAT EXISTED BEFORE the filter (so that TSYNC is
// exercised) and prints "denied <errno>" or "allowed".
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "sandbox/seccomp.h"

namespace {

long attempt(const std::string& call, int existing_socket) {
  if (call == "ptrace") return ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  if (call == "process_vm_readv") {
    char buf[8];
    iovec local{buf, sizeof buf}, remote{buf, sizeof buf};
    return ::process_vm_readv(::getppid(), &local, 1, &remote, 1, 0);
  }
  if (call == "socket_inet") return ::socket(AF_INET, SOCK_STREAM, 0);
  if (call == "socket_unix") return ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (call == "socketpair") {
    int sv[2];
    return ::socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  }
  if (call == "fork") {
    const long pid = ::syscall(SYS_fork);
    if (pid == 0) ::_exit(0);
    return pid;
  }
  if (call == "libc_fork") {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    return pid;
  }
  if (call == "clone_process") {
    const long pid = ::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0);
    if (pid == 0) ::_exit(0);
    return pid;
  }
  if (call == "clone_newuser") {
    const long pid = ::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) ::_exit(0);
    return pid;
  }
  if (call == "clone3") {
    clone_args args{};
    args.exit_signal = SIGCHLD;
    const long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0) ::_exit(0);
    return pid;
  }
  if (call == "execve") {
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    return ::execve("/bin/true", argv, nullptr);
  }
  if (call == "mount") return ::mount("none", "/tmp", "tmpfs", 0, nullptr);
  if (call == "unshare") return ::unshare(CLONE_NEWNS);
  if (call == "setns") return ::setns(0, 0);
  if (call == "bpf") return ::syscall(SYS_bpf, 0, nullptr, 0);
  if (call == "perf_event_open") return ::syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0);
  if (call == "keyctl") return ::syscall(SYS_keyctl, 0, 0, 0, 0, 0);
  if (call == "personality") return ::personality(0xffffffff);
  if (call == "kexec_load") return ::syscall(SYS_kexec_load, 0, 0, nullptr, 0);
  if (call == "io_uring_setup") return ::syscall(SYS_io_uring_setup, 1, nullptr);
  // Things that must keep working.
  if (call == "thread") {
    int value = 0;
    std::thread t([&] { value = 1; });
    t.join();
    return value == 1 ? 0 : -1;
  }
  if (call == "open") {
    const int fd = ::open("/proc/self/status", O_RDONLY);
    if (fd >= 0) ::close(fd);
    return fd;
  }
  if (call == "existing_socket") return ::send(existing_socket, "x", 1, 0) == 1 ? 0 : -1;
  std::fprintf(stderr, "unknown call %s\n", call.c_str());
  ::_exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) return 2;
  const std::string call = argv[1];
  kf::sandbox::RunnerSeccompOptions options;
  options.allow_subprocesses = argc == 3 && std::string(argv[2]) == "subprocesses";
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 3;
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  long result = 0;
  int err = 0;
  std::thread early([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return go; });
    errno = 0;
    result = attempt(call, sv[0]);
    err = errno;
  });
  auto st = kf::sandbox::apply_runner_seccomp(options);
  if (!st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 3;
  }
  {
    std::lock_guard lock(m);
    go = true;
  }
  cv.notify_all();
  early.join();
  if (result > 0 &&
      (call == "fork" || call == "libc_fork" || call == "clone_process" || call == "clone3" || call == "clone_newuser"))
    ::waitpid(static_cast<pid_t>(result), nullptr, 0);
  if (result < 0)
    std::printf("denied %d\n", err);
  else
    std::printf("allowed\n");
  return 0;
}
