#include "evaluator/runner_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <thread>

#include "evaluator/process.h"

namespace kf::eval {

Result<CudaIsolation> parse_cuda_isolation(const std::string& text) {
  if (text == "full") return CudaIsolation::full;
  if (text == "shared-pid") return CudaIsolation::shared_pid;
  if (text == "none") return CudaIsolation::none;
  return make_error("usage.cuda_isolation",
                    "unknown cuda runner isolation '" + text + "': use full, shared-pid or none");
}

std::string to_string(CudaIsolation isolation) {
  switch (isolation) {
    case CudaIsolation::full: return "full";
    case CudaIsolation::shared_pid: return "shared-pid";
    case CudaIsolation::none: return "none";
  }
  return "full";
}

RunnerSession::~RunnerSession() { finish(); }

Status RunnerSession::start(const std::string& runner, const std::string& job_dir,
                            std::map<std::string, std::string> env, double deadline_s,
                            const RunnerSandbox& confinement) {
  int cmd[2], rep[2];
  if (pipe2(cmd, O_CLOEXEC) != 0)
    return make_error("harness.runner", std::string("cannot create runner pipes: ") + std::strerror(errno));
  if (pipe2(rep, O_CLOEXEC) != 0) {
    int saved = errno;
    close(cmd[0]);
    close(cmd[1]);
    return make_error("harness.runner", std::string("cannot create runner pipes: ") + std::strerror(saved));
  }
  sandbox::Spec spec;
  spec.argv = {runner, "--job", job_dir, "--cmd-fd", std::to_string(cmd[0]), "--report-fd", std::to_string(rep[1])};
  spec.env = std::move(env);
  spec.workdir = job_dir;
  spec.readonly_paths = confinement.readonly_paths;
  spec.pass_fds = {cmd[0], rep[1]};
  spec.profile = sandbox::Profile::runner;
  spec.allow_gpu = confinement.cuda;
  double lifetime = std::max(1.0, deadline_s - now_s());
  // The session's own deadline (below) ends a slow runner with verdict timeout; the sandbox's limits
  // are a backstop a little later. CPU time is summed over threads, hence the factor.
  spec.limits.wall_s = lifetime + 10;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  spec.limits.cpu_s = (lifetime + 10) * cores;
  spec.limits.processes = 1024;  // threads count against the cgroup's pids limit
  spec.limits.file_size_bytes = 16ull << 30;
  spec.limits.memory_bytes = confinement.cuda ? 16ull << 30 : 4ull << 30;
  if (confinement.cuda && confinement.cuda_isolation == CudaIsolation::shared_pid) spec.pid_namespace = false;
  if (confinement.cuda && confinement.cuda_isolation == CudaIsolation::none) {
    spec.namespaces = false;
    spec.run_as_uid = static_cast<uint32_t>(geteuid());
    spec.run_as_gid = static_cast<uint32_t>(getegid());
  }
  auto job = sandbox::Job::start(spec);
  close(cmd[0]);
  close(rep[1]);
  if (!job.ok()) {
    close(cmd[1]);
    close(rep[0]);
    return job.error();
  }
  job_ = std::make_unique<sandbox::Job>(std::move(*job));
  cmd_fd_ = cmd[1];
  report_fd_ = rep[0];
  deadline_ = deadline_s;
  return ok_status();
}

void RunnerSession::stop_job(bool kill_now) {
  if (!job_) return;
  if (kill_now) job_->kill();
  outcome_ = job_->wait();
  tree_empty_ = outcome_.tree_empty_after;
  job_.reset();
}

RunnerEnd RunnerSession::ended() {
  RunnerEnd e;
  e.kind = RunnerEnd::Kind::crashed;
  stop_job(false);
  const auto& o = outcome_;
  if (o.status == sandbox::Outcome::Status::signaled) e.signal = o.signal;
  if (o.status == sandbox::Outcome::Status::exited) e.exit_code = o.exit_code;
  if (o.status == sandbox::Outcome::Status::timeout) e.signal = SIGKILL;
  std::string s = o.stderr_text;
  if (o.status == sandbox::Outcome::Status::launch_failed) s += "\ncannot start the runner: " + o.launch_error;
  if (o.memory_limit_hit) s += "\nthe runner hit its host memory limit";
  if (o.cpu_limit_hit) s += "\nthe runner hit its CPU time limit";
  e.stderr_tail = s.size() > 1500 ? s.substr(s.size() - 1500) : s;
  return e;
}

RunnerEnd RunnerSession::exchange(const nlohmann::json& cmd) {
  if (!cmd.is_null()) {
    std::string line = cmd.dump() + "\n";
    if (write(cmd_fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      // The runner is gone; fall through to reading its end.
    }
  }
  char buf[4096];
  for (;;) {
    auto nl = pending_.find('\n');
    if (nl != std::string::npos) {
      RunnerEnd e;
      auto j = nlohmann::json::parse(pending_.substr(0, nl), nullptr, false);
      pending_.erase(0, nl + 1);
      e.reply = j.is_object() ? j
                              : nlohmann::json{{"ok", false}, {"code", "harness.protocol"},
                                               {"detail", "unreadable report from the runner"}};
      return e;
    }
    double left = deadline_ - now_s();
    if (left <= 0) {
      RunnerEnd e;
      e.kind = RunnerEnd::Kind::timeout;
      stop_job(true);
      return e;
    }
    pollfd p{report_fd_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min(left, 0.5) * 1000) + 1);
    if (r < 0 && errno != EINTR) return ended();
    if (r <= 0) continue;
    ssize_t n = read(report_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!pending_.empty()) pending_ += "\n";
      else return ended();
      continue;
    }
    pending_.append(buf, static_cast<size_t>(n));
  }
}

void RunnerSession::finish() {
  if (cmd_fd_ >= 0) {
    const char* bye = "{\"op\":\"exit\"}\n";
    (void)!write(cmd_fd_, bye, std::strlen(bye));
    close(cmd_fd_);
    cmd_fd_ = -1;
  }
  if (job_) {
    // Give it a moment to exit on its own, then make sure.
    for (int i = 0; i < 100 && !job_->finished(); ++i) usleep(10000);
    stop_job(!job_->finished());
  }
  if (report_fd_ >= 0) close(report_fd_);
  report_fd_ = -1;
}

}  // namespace kf::eval
