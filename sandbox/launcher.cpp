// The supervisor side of a launch: starting the prepared child (job_prepare.cpp, child_setup.cpp),
// feeding and capturing it, enforcing the limits, and verifying that nothing of the job survives.
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
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/log.h"
#include "sandbox/job_impl.h"
#include "sandbox/job_setup.h"
#include "sandbox/namespaces.h"
#include "sandbox/proc_stat.h"
#include "sandbox/process_tree.h"

namespace kf::sandbox {

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
    started.set_value(
        make_error("sandbox.setup", std::string("sandbox: cannot start the job: ") + std::strerror(errno)));
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

// Reaps the child when it has ended: closes its pidfd and kills descendants that outlived it.
bool Job::Impl::reap_if_exited() {
  if (::wait4(child, &child_status, WNOHANG, &usage) != child) return false;
  {
    std::lock_guard lock(pidfd_mutex);
    if (pidfd >= 0) ::close(pidfd);
    pidfd = -1;
  }
  if (!plan.pid_ns) kill_tree();  // descendants that outlived the job
  return true;
}

// The wall and CPU limits, and a kill asked for by Job::kill().
void Job::Impl::enforce_limits(double elapsed) {
  if (timed_out) return;
  bool over = elapsed > spec.limits.wall_s;
  if (!over) {
    if (auto cpu_used = cgroup.cpu_seconds(); cpu_used && *cpu_used > spec.limits.cpu_s) {
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

// One poll over the job's pipes: feeds stdin, drains stdout and stderr into their captures, reads the status pipe.
void Job::Impl::pump_io(Capture& cap_out, Capture& cap_err, size_t& stdin_off, std::vector<char>& buf, int timeout_ms) {
  std::vector<pollfd> fds;
  if (in_p.w >= 0) fds.push_back({in_p.w, POLLOUT, 0});
  for (int fd : {cap_out.fd, cap_err.fd, status_p.r})
    if (fd >= 0) fds.push_back({fd, POLLIN, 0});
  if (pidfd >= 0) fds.push_back({pidfd, POLLIN, 0});
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
      if (n > 0)
        status_bytes.append(buf.data(), static_cast<size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        status_p.close_r();
    }
  }
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
    if (!child_done && reap_if_exited()) {
      child_done = true;
      drain_deadline = Clock::now() + std::chrono::seconds(2);
    }
    if (child_done && cap_out.fd < 0 && cap_err.fd < 0 && status_p.r < 0) break;
    if (child_done && Clock::now() > drain_deadline) break;  // a descendant we could not kill holds a pipe
    const double elapsed = seconds_since(t0);
    if (!child_done) enforce_limits(elapsed);
    int timeout_ms = 100;
    if (!child_done)
      timeout_ms = std::clamp(static_cast<int>(std::min((L.wall_s - elapsed) * 1000, 100.0)) + 1, 1, 100);
    pump_io(cap_out, cap_err, stdin_off, buf, timeout_ms);
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
  remove_root_dir();
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
      const auto status = ProcStat::read(p);
      if (!status || status->stopped_or_ended()) break;  // gone, or stopped
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
