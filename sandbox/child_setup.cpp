#include "sandbox/child_setup.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "sandbox/namespaces.h"

namespace kf::sandbox {
namespace {

// Reports a failed setup step to the supervisor (errno, then the step's name) and exits.
[[noreturn]] void child_fail(const ChildPlan& p, const char* step, int err) {
  char buf[256];
  std::memcpy(buf, &err, sizeof err);
  size_t n = std::min(std::strlen(step), sizeof buf - sizeof err);
  std::memcpy(buf + sizeof err, step, n);
  ssize_t ignored = ::write(p.err_w, buf, sizeof err + n);
  (void)ignored;
  ::_exit(127);
}

void close_all_except(const std::vector<int>& keep_sorted, unsigned lo) {
  for (int fd : keep_sorted) {
    if (static_cast<unsigned>(fd) < lo) continue;
    if (static_cast<unsigned>(fd) > lo) ::syscall(SYS_close_range, lo, static_cast<unsigned>(fd) - 1, 0U);
    lo = static_cast<unsigned>(fd) + 1;
  }
  ::syscall(SYS_close_range, lo, ~0U, 0U);
}

void child_mounts(const ChildPlan& p) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) child_fail(p, "make / private", errno);
  if (::mount("kforge-root", p.root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m") != 0)
    child_fail(p, "mount root tmpfs", errno);
  for (const MountOp& op : *p.mounts) {
    const char* t = op.target.c_str();
    int rc = 0;
    switch (op.kind) {
      case MountOp::Kind::mkdir: rc = (::mkdir(t, 0755) == 0 || errno == EEXIST) ? 0 : -1; break;
      case MountOp::Kind::touch: {
        const int fd = ::open(t, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        rc = fd >= 0 || errno == EEXIST || errno == EROFS ? 0 : -1;
        if (fd >= 0) ::close(fd);
        break;
      }
      case MountOp::Kind::symlink: rc = ::symlink(op.source.c_str(), t); break;
      case MountOp::Kind::tmpfs: rc = ::mount("kforge-tmp", t, "tmpfs", MS_NOSUID | MS_NODEV, op.source.c_str()); break;
      case MountOp::Kind::proc:
        // hidepid=2: the namespace's init is a fork of kforge (its cmdline is kforge's) and runs as
        // root; the unprivileged job then cannot see it, only its own processes.
        rc = ::mount("proc", t, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2");
        if (rc != 0) rc = ::mount("proc", t, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
        break;
      case MountOp::Kind::bind_ro:
      case MountOp::Kind::bind_rw:
      case MountOp::Kind::bind_dev: {
        rc = ::mount(op.source.c_str(), t, nullptr, MS_BIND | MS_REC, nullptr);
        if (rc != 0) break;
        unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID;
        if (op.kind == MountOp::Kind::bind_ro) flags |= MS_RDONLY | MS_NODEV;
        if (op.kind == MountOp::Kind::bind_rw) flags |= MS_NODEV;
        rc = ::mount(nullptr, t, nullptr, flags, nullptr);
        break;
      }
    }
    if (rc != 0 && !op.optional) child_fail(p, t, errno);
  }
  if (::chdir(p.root) != 0) child_fail(p, "chdir new root", errno);
  if (::syscall(SYS_pivot_root, ".", ".") == 0) {
    if (::umount2(".", MNT_DETACH) != 0) child_fail(p, "detach old root", errno);
  } else {
    // pivot_root refuses some roots (e.g. an initramfs); moving the new root over / and
    // chrooting is equivalent once the job has no privileges left.
    if (::mount(p.root, "/", nullptr, MS_MOVE, nullptr) != 0) child_fail(p, "move new root", errno);
    if (::chroot(".") != 0) child_fail(p, "chroot", errno);
  }
  if (::chdir("/") != 0) child_fail(p, "chdir /", errno);
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
    child_fail(p, "remount root read-only", errno);
}

[[noreturn]] void exec_job(const ChildPlan& p) {
  if (::setsid() < 0 && errno != EPERM) child_fail(p, "setsid", errno);
  if (::dup2(p.stdin_r, 0) < 0 || ::dup2(p.stdout_w, 1) < 0 || ::dup2(p.stderr_w, 2) < 0)
    child_fail(p, "dup2 stdio", errno);
  close_all_except(p.job_keep, 3);
  for (int fd : p.pass_fds) {
    const int fl = ::fcntl(fd, F_GETFD);
    if (fl < 0 || ::fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) != 0) child_fail(p, "pass_fds", errno);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  // A scheduler's SIGTERM reaches every process of a batch job (Slurm), the job's too; ending the job is
  // kforge's decision (it records the evaluation in flight, or kills the job with SIGKILL), so the job starts
  // with SIGTERM ignored.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGTERM, &ign, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const auto& l : p.limits) {
    const rlimit r{l.soft, l.hard};
    if (::setrlimit(l.resource, &r) != 0) child_fail(p, "setrlimit", errno);
  }
  if (::chdir(p.workdir) != 0) child_fail(p, "chdir job folder", errno);
  if (p.drop_privileges) {
    // Raw system calls: glibc's wrappers would try to synchronise threads that only exist in the
    // supervisor.
    if (::syscall(SYS_setgroups, 0, nullptr) != 0) child_fail(p, "setgroups", errno);
    if (::syscall(SYS_setresgid, p.gid, p.gid, p.gid) != 0) child_fail(p, "setresgid", errno);
    if (::syscall(SYS_setresuid, p.uid, p.uid, p.uid) != 0) child_fail(p, "setresuid", errno);
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(p, "no_new_privs", errno);
  ::execve(p.exe, p.argv.data(), p.envp.data());
  child_fail(p, "exec", errno);
}

// PID 1 of the job's namespace: starts the job, reaps every orphan, reports the job's wait status
// and exits, which makes the kernel kill whatever is left in the namespace.
[[noreturn]] void init_main(const ChildPlan& p) {
  const pid_t job = raw_clone(0);
  if (job < 0) child_fail(p, "fork job", errno);
  if (job == 0) exec_job(p);
  close_all_except(p.init_keep, 0);
  for (;;) {
    int st = 0;
    const pid_t pid = ::waitpid(-1, &st, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid == job || pid < 0) {
      if (pid < 0) st = -1;
      ssize_t ignored = ::write(p.status_w, &st, sizeof st);
      (void)ignored;
      ::_exit(0);
    }
  }
}

}  // namespace

[[noreturn]] void child_main(const ChildPlan& p) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  char go = 0;
  ssize_t got;
  while ((got = ::read(p.go_r, &go, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1) ::_exit(127);  // the supervisor gave up on this launch
  ::close(p.go_r);
  // Best effort: it only hides the host's cgroup paths from the job.
  if (p.cgroup_ns) (void)::unshare(CLONE_NEWCGROUP);
  if (p.mount_ns) child_mounts(p);
  if (p.pid_ns) init_main(p);
  exec_job(p);
}

}  // namespace kf::sandbox
