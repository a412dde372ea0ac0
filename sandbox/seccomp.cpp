#include "sandbox/seccomp.h"

#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace kf::sandbox {
namespace {

struct Rule {
  const char* name;
  uint32_t action;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = [] {
    std::vector<Rule> v;
    // clang-format off
    for (const char* n : {"ptrace", "process_vm_readv", "process_vm_writev", "kexec_load", "kexec_file_load"})
      v.push_back({n, SCMP_ACT_KILL_PROCESS});
    for (const char* n :
         {"socket", "socketpair", "fork", "vfork", "execve", "execveat", "mount", "umount2", "pivot_root",
          "chroot", "unshare", "setns", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
          "personality", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
          "pidfd_getfd", "pidfd_open", "kcmp", "process_madvise", "init_module", "finit_module",
          "delete_module", "reboot", "swapon", "swapoff", "settimeofday", "clock_settime", "clock_adjtime",
          "adjtimex", "name_to_handle_at", "open_by_handle_at", "fsopen", "fsmount", "move_mount",
          "open_tree", "mount_setattr", "acct", "quotactl"})
      v.push_back({n, SCMP_ACT_ERRNO(EPERM)});
    // clang-format on
    v.push_back({"clone3", SCMP_ACT_ERRNO(ENOSYS)});
    return v;
  }();
  return r;
}

Error seccomp_error(const std::string& what, int rc) {
  return make_error("sandbox.seccomp", "sandbox: cannot install the runner's system-call filter (" + what + ": " +
                                           std::strerror(-rc) +
                                           "); the kernel needs seccomp filter support (CONFIG_SECCOMP_FILTER)");
}

bool starts_processes(const std::string& name) {
  return name == "fork" || name == "vfork" || name == "execve" || name == "execveat";
}

}  // namespace

const std::vector<std::string>& runner_denied_syscalls() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& r : rules()) v.push_back(r.name);
    v.push_back("clone");  // only without CLONE_THREAD
    return v;
  }();
  return names;
}

Status apply_runner_seccomp(const RunnerSeccompOptions& options) {
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) return make_error("sandbox.seccomp", "sandbox: seccomp_init failed (out of memory?)");
  int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1);
  if (rc != 0) return seccomp_error("TSYNC attribute", rc);
  for (const auto& r : rules()) {
    if (options.allow_subprocesses && starts_processes(r.name)) continue;
    const int nr = seccomp_syscall_resolve_name(r.name);
    if (nr == __NR_SCMP_ERROR) continue;  // not a system call on this architecture (e.g. fork on arm64)
    rc = seccomp_rule_add(ctx.get(), r.action, nr, 0);
    if (rc != 0) return seccomp_error(std::string("rule for ") + r.name, rc);
  }
  // Threads (CLONE_THREAD) stay allowed: CUDA and the candidate may start them.
  if (!options.allow_subprocesses) {
    rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    if (rc != 0) return seccomp_error("rule for clone", rc);
  } else {
    // Child processes, but no new namespaces through clone's flags (clone3 stays ENOSYS: its flags are
    // behind a pointer the filter cannot read).
    for (const uint64_t flag :
         {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET}) {
      rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                            SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
      if (rc != 0) return seccomp_error("rule for clone", rc);
    }
  }
  rc = seccomp_load(ctx.get());
  if (rc != 0) return seccomp_error("load", rc);
  return ok_status();
}

Status make_not_dumpable() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    return make_error("sandbox.dumpable",
                      std::string("sandbox: prctl(PR_SET_DUMPABLE, 0) failed: ") + std::strerror(errno));
  return ok_status();
}

}  // namespace kf::sandbox
