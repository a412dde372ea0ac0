#pragma once
// System-call filters for processes that run candidate code.
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::sandbox {

// The runner's filter, applied by kforge-runner to ALL its threads (TSYNC) after CUDA is
// initialised and before the candidate library is loaded. Denied:
//   killed (SIGSYS): ptrace, process_vm_readv/writev, kexec_load/kexec_file_load;
//   EPERM: socket, socketpair, fork, vfork, clone without CLONE_THREAD, execve, execveat, mount,
//          umount2, pivot_root, chroot, unshare, setns, bpf, perf_event_open, keyctl, add_key,
//          request_key, personality, io_uring_*, userfaultfd, pidfd_getfd, pidfd_open, kcmp,
//          process_madvise, module loading, reboot, swap, clock setting, name_to_handle_at,
//          open_by_handle_at;
//   ENOSYS: clone3 (so that libc falls back to clone, where CLONE_THREAD can be checked).
// Descriptors opened before the filter (including sockets) keep working. Also sets no_new_privs.
struct RunnerSeccompOptions {
  // The python runner of a Triton (or other JIT-compiled) solution: the JIT starts its compilers (ptxas, cc)
  // as child processes, so fork, vfork, clone without CLONE_THREAD (but with no CLONE_NEW* flag), execve
  // and execveat stay allowed; every other rule holds. The namespaces, the cgroup and the unprivileged user
  // still bound the children.
  bool allow_subprocesses = false;
};
Status apply_runner_seccomp(const RunnerSeccompOptions& options = {});

// Names of the system calls apply_runner_seccomp() denies (for documentation and tests).
const std::vector<std::string>& runner_denied_syscalls();

// prctl(PR_SET_DUMPABLE, 0): no ptrace attach and no /proc/<pid>/mem for other processes of the
// same user. For processes that hold reference data (the oracle, the supervisor).
Status make_not_dumpable();

}  // namespace kf::sandbox
