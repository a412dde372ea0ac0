#include "sandbox/launcher.h"

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
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>
#include <mutex>
#include <set>

#include "core/log.h"
#include "sandbox/cgroup.h"
#include "sandbox/mount_plan.h"
#include "sandbox/process_tree.h"

namespace kf::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Namespaces the kernel lets us create, probed once per process.
struct NamespaceSupport {
  int flags = 0;
  std::vector<std::string> missing;
};

struct NamespaceKind {
  int flag;
  const char* name;
};
constexpr NamespaceKind kNamespaces[] = {
    {CLONE_NEWPID, "PID namespace (the job can see and signal other processes; tree kill relies on the cgroup/process group)"},
    {CLONE_NEWNS, "mount namespace (the job sees the whole file system; no private /tmp, /dev/shm or minimal root)"},
    {CLONE_NEWNET, "network namespace (the job can open network connections)"},
    {CLONE_NEWIPC, "IPC namespace (the job shares System V IPC and POSIX message queues)"},
    {CLONE_NEWUTS, "UTS namespace"},
    {CLONE_NEWCGROUP, "cgroup namespace"},
};

pid_t raw_clone(int flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, static_cast<unsigned long>(flags) | SIGCHLD, nullptr,
                                      nullptr, nullptr, 0UL));
}

bool probe(int flags) {
  const pid_t pid = raw_clone(flags);
  if (pid == 0) ::_exit(0);
  if (pid < 0) return false;
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

const NamespaceSupport& namespace_support() {
  static NamespaceSupport support = [] {
    NamespaceSupport s;
    int all = 0;
    for (const auto& ns : kNamespaces) all |= ns.flag;
    if (probe(all)) {
      s.flags = all;
      return s;
    }
    for (const auto& ns : kNamespaces) {
      if (probe(ns.flag)) {
        s.flags |= ns.flag;
      } else {
        s.missing.push_back(std::string(ns.name) + " unavailable: " + std::strerror(errno));
      }
    }
    // The minimal root needs /proc from a PID namespace; without one /proc is left out.
    for (const auto& m : s.missing) log::warn("sandbox: " + m);
    return s;
  }();
  return support;
}

// ---------------------------------------------------------------------------------------------
// Everything the child needs, prepared before the clone: the child must not allocate.
struct ChildPlan {
  int clone_flags = 0;
  bool pid_ns = false;
  bool mount_ns = false;
  bool cgroup_ns = false;
  const char* exe = nullptr;
  std::vector<char*> argv, envp;
  const std::vector<MountOp>* mounts = nullptr;
  const char* root = nullptr;
  const char* workdir = nullptr;
  int go_r = -1;  // the supervisor writes one byte here once the child sits in the job's cgroups
  int stdin_r = -1, stdout_w = -1, stderr_w = -1, err_w = -1, status_w = -1;
  std::vector<int> job_keep;   // sorted: pass_fds + err_w
  std::vector<int> pass_fds;
  std::vector<int> init_keep;  // sorted: status_w
  struct Limit {
    int resource;
    rlim_t soft, hard;
  };
  std::vector<Limit> limits;
  bool drop_privileges = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

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
      case MountOp::Kind::mkdir:
        rc = (::mkdir(t, 0755) == 0 || errno == EEXIST) ? 0 : -1;
        break;
      case MountOp::Kind::touch: {
        const int fd = ::open(t, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        rc = fd >= 0 || errno == EEXIST || errno == EROFS ? 0 : -1;
        if (fd >= 0) ::close(fd);
        break;
      }
      case MountOp::Kind::symlink:
        rc = ::symlink(op.source.c_str(), t);
        break;
      case MountOp::Kind::tmpfs:
        rc = ::mount("kforge-tmp", t, "tmpfs", MS_NOSUID | MS_NODEV, op.source.c_str());
        break;
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

// ---------------------------------------------------------------------------------------------
// Supervisor side.

struct Pipe {
  int r = -1, w = -1;
  ~Pipe() { close_both(); }
  void close_r() { if (r >= 0) ::close(r); r = -1; }
  void close_w() { if (w >= 0) ::close(w); w = -1; }
  void close_both() { close_r(); close_w(); }
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.r = fds[0];
  p.w = fds[1];
  return true;
}

std::string resolve_exe(const std::string& arg0, const std::map<std::string, std::string>& env) {
  if (arg0.find('/') != std::string::npos) return arg0;
  auto it = env.find("PATH");
  const std::string path = it == env.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find(':', pos);
    if (next == std::string::npos) next = path.size();
    std::string dir = path.substr(pos, next - pos);
    if (dir.empty()) dir = ".";
    const std::string cand = dir + "/" + arg0;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    pos = next + 1;
  }
  return {};
}

// True when `path` (resolved) lies in one of the directories every job sees anyway.
bool under_system_paths(const std::string& path) {
  std::error_code ec;
  const std::string real = std::filesystem::canonical(path, ec).string();
  if (ec) return false;
  for (const auto& sys : system_readonly_paths()) {
    const std::string dir = std::filesystem::canonical(sys, ec).string();
    if (ec || dir.empty()) continue;
    if (real == dir || real.rfind(dir + "/", 0) == 0) return true;
  }
  return false;
}

std::string job_name() {
  static std::atomic<unsigned> counter{0};
  return "job-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void chown_tree(const std::string& dir, uid_t uid, gid_t gid) {
  std::error_code ec;
  if (::lchown(dir.c_str(), uid, gid) != 0) return;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (::lchown(it->path().c_str(), uid, gid) != 0) {
      // Best effort: a file the job cannot write stays read-only to it.
    }
  }
}

// Collects a stream up to `cap` bytes exactly and discards (but keeps draining) the rest.
struct Capture {
  int fd = -1;
  size_t cap = 0;
  std::string* text = nullptr;
  bool* truncated = nullptr;
  bool drain(char* buf, size_t buf_size) {
    const ssize_t n = ::read(fd, buf, buf_size);
    if (n > 0) {
      const size_t room = cap - std::min(cap, text->size());
      const size_t take = std::min(room, static_cast<size_t>(n));
      text->append(buf, take);
      if (take < static_cast<size_t>(n)) *truncated = true;
      return true;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    ::close(fd);
    fd = -1;
    return false;
  }
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string read_ns_id(pid_t pid) {
  char buf[64] = {0};
  const std::string link = "/proc/" + std::to_string(pid) + "/ns/pid";
  const ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace


struct Job::Impl {
  Spec spec;
  Outcome out;
  ChildPlan plan;
  std::vector<MountOp> mounts;
  std::string workdir, exe, root_dir, ns_id;
  std::vector<std::string> env_strings, argv_strings;
  JobCgroup cgroup;
  Pipe in_p, out_p, err_p, report_p, status_p, go_p;
  pid_t child = -1;
  int pidfd = -1;
  Clock::time_point t0;
  std::thread monitor;
  std::atomic<bool> kill_requested{false};
  std::mutex pidfd_mutex;  // Job::kill() may run on another thread than the monitor
  std::atomic<bool> done{false};
  bool waited = false;
  bool setup_failed = false;  // the child could not build the sandbox (kforge's fault, not the job's)
  std::string report, status_bytes;
  int child_status = 0;
  bool timed_out = false;
  rusage usage{};
  int frozen_by = 0;           // 1: cgroup freezer, 2: SIGSTOP to `stopped`
  std::vector<pid_t> stopped;

  ~Impl() {
    if (monitor.joinable()) {
      kill_requested = true;
      monitor.join();
    }
    if (pidfd >= 0) ::close(pidfd);
    if (!root_dir.empty()) ::rmdir(root_dir.c_str());
  }

  Status prepare();
  void launch(std::promise<Status>& started);
  void supervise();
  void kill_tree() {
    std::lock_guard lock(pidfd_mutex);
    cgroup.kill_all();
    if (pidfd >= 0) ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    else if (child > 0 && !done) ::kill(child, SIGKILL);
    if (!plan.pid_ns && child > 0) ::kill(-child, SIGKILL);
  }
  void finish();
};

// A protection the kernel or the cgroup setup does not give is worth one warning per process; one the
// caller turned off (Spec.namespaces, Spec.pid_namespace) is only a debug line.
void warn_once_unless_chosen(const std::string& missing) {
  if (missing.find("disabled by Spec.") != std::string::npos) {
    log::debug("sandbox: missing protection: " + missing);
    return;
  }
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (warned.insert(missing).second) log::warn("sandbox: missing protection: " + missing);
}

// Leftovers of a kforge process that died mid-job (its mount point and cgroups; the job itself died
// with it through PR_SET_PDEATHSIG): removed once per process, only when empty and their owner is gone.
void remove_stale_leftovers() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto owner_dead = [](const std::string& name, const std::string& prefix) {
      if (name.rfind(prefix, 0) != 0) return false;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    };
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/tmp", ec))
      if (owner_dead(e.path().filename().string(), "kforge-root-")) ::rmdir(e.path().c_str());
    for (const auto& ctrl : std::filesystem::directory_iterator("/sys/fs/cgroup", ec)) {
      std::error_code ec2;
      for (auto it = std::filesystem::recursive_directory_iterator(ctrl.path(), ec2);
           !ec2 && it != std::filesystem::recursive_directory_iterator(); it.increment(ec2)) {
        if (!it->is_directory(ec2)) continue;
        const std::string name = it->path().filename().string();
        if (owner_dead(name, "kforge-job-") || owner_dead(name, "job-")) {
          if (name.rfind("job-", 0) == 0 && it->path().parent_path().filename() != "kforge") continue;
          ::rmdir(it->path().c_str());
          it.disable_recursion_pending();
        }
      }
    }
  });
}

Status Job::Impl::prepare() {
  remove_stale_leftovers();
  if (spec.argv.empty()) return make_error("sandbox.bad_spec", "sandbox: empty argv; pass the program to run");
  std::error_code ec;
  if (spec.workdir.empty() || !std::filesystem::is_directory(spec.workdir, ec))
    return make_error("sandbox.bad_spec", "sandbox: job folder '" + spec.workdir +
                                              "' is not a directory; create it before launching");
  for (int fd : spec.pass_fds)
    if (fd < 3 || ::fcntl(fd, F_GETFD) < 0)
      return make_error("sandbox.bad_spec", "sandbox: pass_fds entry " + std::to_string(fd) +
                                                " is not an open descriptor >= 3");
  workdir = std::filesystem::canonical(spec.workdir, ec).string();
  exe = resolve_exe(spec.argv[0], spec.env);
  if (exe.empty()) {
    out.status = Outcome::Status::launch_failed;
    out.launch_error = "program '" + spec.argv[0] + "' not found in the job's PATH";
    return ok_status();
  }

  if (spec.namespaces) {
    const auto& support = namespace_support();
    plan.clone_flags = support.flags;
    out.missing_protections = support.missing;
    if (!spec.pid_namespace && (plan.clone_flags & CLONE_NEWPID)) {
      plan.clone_flags &= ~CLONE_NEWPID;
      out.missing_protections.push_back(std::string(kNamespaces[0].name) + " disabled by Spec.pid_namespace");
    }
  } else {
    for (const auto& ns : kNamespaces)
      out.missing_protections.push_back(std::string(ns.name) + " disabled by Spec.namespaces");
  }
  plan.pid_ns = plan.clone_flags & CLONE_NEWPID;
  plan.mount_ns = plan.clone_flags & CLONE_NEWNS;
  // The cgroup namespace is entered after the child has joined the job's groups: some kernels
  // (gVisor) resolve /sys/fs/cgroup paths relative to the namespace's root.
  plan.cgroup_ns = plan.clone_flags & CLONE_NEWCGROUP;
  plan.clone_flags &= ~CLONE_NEWCGROUP;

  cgroup = JobCgroup::create(job_name(), spec.limits.memory_bytes, spec.limits.processes);
  for (const auto& m : cgroup.missing()) out.missing_protections.push_back(m);

  if (plan.mount_ns) {
    std::string tmpl_text = "/tmp/kforge-root-" + std::to_string(::getpid()) + "-XXXXXX";
    std::vector<char> tmpl(tmpl_text.begin(), tmpl_text.end());
    tmpl.push_back(0);
    if (::mkdtemp(tmpl.data()) == nullptr)
      return make_error("sandbox.setup", std::string("sandbox: cannot create a mount point in /tmp: ") +
                                             std::strerror(errno));
    root_dir = tmpl.data();
    MountPlanInput in;
    in.root = root_dir;
    in.workdir = workdir;
    in.readonly_paths = spec.readonly_paths;
    if (!under_system_paths(exe)) in.readonly_paths.push_back(exe);  // the program itself is always visible
    in.writable_paths = spec.writable_paths;
    in.allow_gpu = spec.allow_gpu;
    in.mount_proc = plan.pid_ns;
    in.expose_zero_and_random = spec.profile != Profile::compile;
    in.tmp_bytes = std::min<uint64_t>(spec.limits.memory_bytes, 4ull << 30);
    mounts = plan_mounts(in);
    plan.mounts = &mounts;
    plan.root = root_dir.c_str();
  }

  std::map<std::string, std::string> env = spec.env;
  if (!env.count("TMPDIR")) env["TMPDIR"] = plan.mount_ns ? "/tmp" : workdir;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  argv_strings = spec.argv;
  for (auto& s : argv_strings) plan.argv.push_back(s.data());
  plan.argv.push_back(nullptr);
  for (auto& s : env_strings) plan.envp.push_back(s.data());
  plan.envp.push_back(nullptr);
  plan.exe = exe.c_str();
  plan.workdir = workdir.c_str();

  const bool root = ::geteuid() == 0;
  plan.drop_privileges = root;
  plan.uid = spec.run_as_uid;
  plan.gid = spec.run_as_gid;
  if (root) chown_tree(workdir, plan.uid, plan.gid);

  const auto& L = spec.limits;
  const rlim_t cpu = static_cast<rlim_t>(std::max(1.0, std::ceil(L.cpu_s)));
  plan.limits.push_back({RLIMIT_CPU, cpu, cpu + 1});
  plan.limits.push_back({RLIMIT_FSIZE, L.file_size_bytes, L.file_size_bytes});
  plan.limits.push_back({RLIMIT_NOFILE, static_cast<rlim_t>(L.open_files), static_cast<rlim_t>(L.open_files)});
  plan.limits.push_back({RLIMIT_CORE, 0, 0});
  if (!cgroup.limits_processes()) {
    // Counted per user, so concurrent jobs of the same user share it: only a fallback.
    plan.limits.push_back({RLIMIT_NPROC, static_cast<rlim_t>(L.processes), static_cast<rlim_t>(L.processes)});
    if (!plan.drop_privileges && root) out.missing_protections.push_back("process cap (root ignores RLIMIT_NPROC)");
  }
  if (!cgroup.limits_memory()) {
    if (spec.profile == Profile::compile)
      plan.limits.push_back({RLIMIT_AS, L.memory_bytes, L.memory_bytes});
    else
      out.missing_protections.push_back("host memory limit (no cgroup; RLIMIT_AS would break CUDA)");
  }

  if (!make_pipe(in_p) || !make_pipe(out_p) || !make_pipe(err_p) || !make_pipe(report_p) || !make_pipe(status_p) ||
      !make_pipe(go_p))
    return make_error("sandbox.setup", std::string("sandbox: cannot create pipes: ") + std::strerror(errno) +
                                           "; raise kforge's open-file limit");
  plan.stdin_r = in_p.r;
  plan.stdout_w = out_p.w;
  plan.stderr_w = err_p.w;
  plan.err_w = report_p.w;
  plan.status_w = status_p.w;
  plan.go_r = go_p.r;
  plan.pass_fds = spec.pass_fds;
  plan.job_keep = spec.pass_fds;
  plan.job_keep.push_back(report_p.w);
  std::sort(plan.job_keep.begin(), plan.job_keep.end());
  plan.init_keep = {status_p.w};
  return ok_status();
}

// Runs on the monitor thread: the job's parent is this thread, so PR_SET_PDEATHSIG fires only when
// the monitor (not the caller's thread) goes away.
void Job::Impl::launch(std::promise<Status>& started) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &s, nullptr);  // a job that closes its stdin early must not kill kforge
  t0 = Clock::now();
  child = raw_clone(plan.clone_flags);
  if (child == 0) child_main(plan);
  if (child < 0) {
    started.set_value(make_error("sandbox.setup", std::string("sandbox: cannot start the job: ") + std::strerror(errno)));
    done = true;
    return;
  }
  in_p.close_r();
  out_p.close_w();
  err_p.close_w();
  report_p.close_w();
  status_p.close_w();
  go_p.close_r();
  // The supervisor moves the child into the job's groups (the child cannot always name them: some
  // kernels resolve cgroup paths inside its namespaces differently) before it runs anything.
  for (auto& failure : cgroup.add_process(child)) out.missing_protections.push_back(std::move(failure));
  const char go = 1;
  if (::write(go_p.w, &go, 1) != 1) out.missing_protections.push_back("sandbox start handshake failed");
  go_p.close_w();
  if (plan.pid_ns) ns_id = read_ns_id(child);
  pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
  // The setup report: EOF once the job's program is exec'ed, or the failed step.
  char buf[256];
  for (;;) {
    pollfd p{report_p.r, POLLIN, 0};
    const double left_ms = (spec.limits.wall_s - seconds_since(t0)) * 1000;
    if (left_ms <= 0) break;  // a setup step hangs; the wall limit applies to it too
    if (::poll(&p, 1, static_cast<int>(std::min(left_ms, 1000.0))) <= 0) continue;
    const ssize_t n = ::read(report_p.r, buf, sizeof buf);
    if (n > 0) report.append(buf, static_cast<size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR)) {
      report_p.close_r();
      break;
    }
  }
  if (report.size() >= sizeof(int)) {
    int err = 0;
    std::memcpy(&err, report.data(), sizeof err);
    const std::string step = report.substr(sizeof err);
    out.status = Outcome::Status::launch_failed;
    out.launch_error = step + ": " + std::strerror(err);
    setup_failed = step != "exec";
  }
  started.set_value(ok_status());
  supervise();
}

void Job::Impl::supervise() {
  const auto& L = spec.limits;
  for (int fd : {in_p.w, out_p.r, err_p.r, status_p.r})
    if (fd >= 0) ::fcntl(fd, F_SETFL, O_NONBLOCK);
  size_t stdin_off = 0;
  if (spec.stdin_data.empty()) in_p.close_w();
  Capture cap_out{out_p.r, L.output_bytes, &out.stdout_text, &out.stdout_truncated};
  Capture cap_err{err_p.r, L.output_bytes, &out.stderr_text, &out.stderr_truncated};
  out_p.r = err_p.r = -1;  // owned by the captures now
  bool child_done = false;
  std::vector<char> buf(1 << 16);
  Clock::time_point drain_deadline{};
  for (;;) {
    if (!child_done) {
      const pid_t w = ::wait4(child, &child_status, WNOHANG, &usage);
      if (w == child) {
        child_done = true;
        {
          std::lock_guard lock(pidfd_mutex);
          if (pidfd >= 0) ::close(pidfd);
          pidfd = -1;
        }
        if (!plan.pid_ns) kill_tree();  // descendants that outlived the job
        drain_deadline = Clock::now() + std::chrono::seconds(2);
      }
    }
    if (child_done && cap_out.fd < 0 && cap_err.fd < 0 && status_p.r < 0) break;
    if (child_done && Clock::now() > drain_deadline) break;  // a descendant we could not kill holds a pipe
    const double elapsed = seconds_since(t0);
    if (!child_done && !timed_out) {
      bool over = elapsed > L.wall_s;
      if (!over) {
        if (auto cpu_used = cgroup.cpu_seconds(); cpu_used && *cpu_used > L.cpu_s) {
          over = true;
          out.cpu_limit_hit = true;
        }
      }
      if (over) {
        timed_out = true;
        kill_tree();
      } else if (kill_requested) {
        kill_tree();
      }
    }
    std::vector<pollfd> fds;
    if (in_p.w >= 0) fds.push_back({in_p.w, POLLOUT, 0});
    for (int fd : {cap_out.fd, cap_err.fd, status_p.r})
      if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    if (pidfd >= 0) fds.push_back({pidfd, POLLIN, 0});
    int timeout_ms = 100;
    if (!child_done) timeout_ms = std::clamp(static_cast<int>(std::min((L.wall_s - elapsed) * 1000, 100.0)) + 1, 1, 100);
    ::poll(fds.data(), fds.size(), timeout_ms);
    for (const auto& p : fds) {
      if (!(p.revents & (POLLIN | POLLOUT | POLLHUP | POLLERR))) continue;
      if (p.fd == in_p.w) {
        const ssize_t n = ::write(in_p.w, spec.stdin_data.data() + stdin_off, spec.stdin_data.size() - stdin_off);
        if (n > 0) stdin_off += static_cast<size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || stdin_off >= spec.stdin_data.size()) in_p.close_w();
      } else if (p.fd == cap_out.fd) {
        cap_out.drain(buf.data(), buf.size());
      } else if (p.fd == cap_err.fd) {
        cap_err.drain(buf.data(), buf.size());
      } else if (p.fd == status_p.r) {
        const ssize_t n = ::read(status_p.r, buf.data(), 256);
        if (n > 0) status_bytes.append(buf.data(), static_cast<size_t>(n));
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) status_p.close_r();
      }
    }
  }
  if (!child_done) {  // defensive: the loop only ends after the child was reaped
    kill_tree();
    ::wait4(child, &child_status, 0, &usage);
  }
  if (cap_out.fd >= 0) ::close(cap_out.fd);
  if (cap_err.fd >= 0) ::close(cap_err.fd);
  in_p.close_w();
  status_p.close_r();
  out.wall_s = seconds_since(t0);
  done = true;
}

void Job::Impl::finish() {
  if (child > 0) {
    int job_status = child_status;
    bool have_status = true;
    if (plan.pid_ns) {
      have_status = status_bytes.size() >= sizeof(int);
      if (have_status) std::memcpy(&job_status, status_bytes.data(), sizeof(int));
    }
    if (out.status == Outcome::Status::launch_failed && !out.launch_error.empty()) {
      // Reported by the child during setup or exec.
    } else if (timed_out) {
      out.status = Outcome::Status::timeout;
    } else if (have_status && job_status != -1 && WIFEXITED(job_status)) {
      out.status = Outcome::Status::exited;
      out.exit_code = WEXITSTATUS(job_status);
    } else if (have_status && job_status != -1 && WIFSIGNALED(job_status)) {
      out.status = Outcome::Status::signaled;
      out.signal = WTERMSIG(job_status);
      if (out.signal == SIGXCPU) out.cpu_limit_hit = true;
    } else if (WIFSIGNALED(child_status)) {
      out.status = Outcome::Status::signaled;
      out.signal = WTERMSIG(child_status);
    } else {
      out.status = Outcome::Status::launch_failed;
      out.launch_error = "the job's supervisor process ended without reporting a status";
    }
    out.memory_limit_hit = cgroup.oom_killed();
    if (out.memory_limit_hit && out.status == Outcome::Status::signaled) out.signal = SIGKILL;
    const double rusage_cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                              static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    out.cpu_s = cgroup.cpu_seconds().value_or(rusage_cpu);
    out.peak_memory_bytes = cgroup.peak_memory_bytes().value_or(static_cast<uint64_t>(usage.ru_maxrss) * 1024);

    // Nothing of the job may survive: kill again and verify.
    TreeProbe probe;
    probe.cgroup = &cgroup;
    probe.pid_namespace = ns_id;
    probe.session = plan.pid_ns ? 0 : child;
    out.tree_empty_after = ensure_tree_gone(probe);
    if (!out.tree_empty_after) log::error("sandbox: a process of the job survived the kill; see docs/sandbox.md");
  }
  cgroup.destroy();
  if (!root_dir.empty()) {
    ::rmdir(root_dir.c_str());
    root_dir.clear();
  }
  for (const auto& m : out.missing_protections) warn_once_unless_chosen(m);
}

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Job::Job(Job&&) noexcept = default;
Job& Job::operator=(Job&&) noexcept = default;
Job::~Job() {
  if (impl_ && !impl_->waited) {
    kill();
    (void)wait();
  }
}

Result<Job> Job::start(const Spec& spec) {
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  if (auto st = impl->prepare(); !st) return st.error();
  if (impl->out.status == Outcome::Status::launch_failed && !impl->out.launch_error.empty()) {
    impl->done = true;
    return Job(std::move(impl));
  }
  std::promise<Status> started;
  auto fut = started.get_future();
  Impl* raw = impl.get();
  impl->monitor = std::thread([raw, &started] { raw->launch(started); });
  Status st = fut.get();
  if (!st) {
    impl->monitor.join();
    return st.error();
  }
  if (impl->setup_failed) {
    Error e = make_error("sandbox.setup", "sandbox: could not set up the job (" + impl->out.launch_error +
                                              "); kforge needs root or CAP_SYS_ADMIN for its namespaces, "
                                              "see docs/sandbox.md");
    impl->monitor.join();
    impl->waited = true;
    impl->finish();
    return e;
  }
  return Job(std::move(impl));
}

bool Job::finished() const { return !impl_ || impl_->done; }

void Job::kill() {
  if (!impl_ || impl_->done) return;
  impl_->kill_requested = true;
  impl_->kill_tree();
}

std::vector<pid_t> Job::pids() const {
  if (!impl_ || impl_->done) return {};
  std::vector<pid_t> out = impl_->cgroup.pids();
  if (!out.empty()) return out;
  // No usable group: walk the tree from the child through /proc/<pid>/task/<tid>/children.
  std::vector<pid_t> todo{impl_->child};
  while (!todo.empty() && out.size() < 4096) {
    pid_t p = todo.back();
    todo.pop_back();
    if (p <= 0 || std::find(out.begin(), out.end(), p) != out.end()) continue;
    out.push_back(p);
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(p) + "/task", ec)) {
      std::ifstream in(task.path() / "children");
      long c = 0;
      while (in >> c) todo.push_back(static_cast<pid_t>(c));
    }
  }
  return out;
}

bool Job::freeze(double timeout_s) {
  if (!impl_ || impl_->done) return false;
  if (impl_->cgroup.freeze(timeout_s)) {
    impl_->frozen_by = 1;
    return true;
  }
  auto list = pids();
  for (pid_t p : list) ::kill(p, SIGSTOP);
  impl_->frozen_by = 2;
  impl_->stopped = list;
  const auto until = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (pid_t p : list) {
    for (;;) {
      std::ifstream in("/proc/" + std::to_string(p) + "/stat");
      std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto close_paren = all.rfind(')');
      if (close_paren == std::string::npos || close_paren + 2 >= all.size()) break;  // gone
      char st = all[close_paren + 2];
      if (st == 'T' || st == 't' || st == 'Z' || st == 'X') break;
      if (Clock::now() > until) {
        thaw();
        return false;
      }
      ::usleep(50);
    }
  }
  return true;
}

void Job::thaw() {
  if (!impl_) return;
  if (impl_->frozen_by == 1) impl_->cgroup.thaw();
  if (impl_->frozen_by == 2)
    for (pid_t p : impl_->stopped) ::kill(p, SIGCONT);
  impl_->frozen_by = 0;
  impl_->stopped.clear();
}

Outcome Job::wait() {
  if (!impl_) return Outcome{};
  if (impl_->waited) return impl_->out;
  if (impl_->monitor.joinable()) impl_->monitor.join();
  impl_->waited = true;
  impl_->finish();
  return impl_->out;
}

Result<Outcome> run(const Spec& spec) {
  auto job = Job::start(spec);
  if (!job) return job.error();
  return job->wait();
}

}  // namespace kf::sandbox
