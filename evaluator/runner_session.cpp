#include "evaluator/runner_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/child_process.h"
#include "core/time.h"

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

Status RunnerSession::start(const std::vector<std::string>& command, const std::string& job_dir,
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
  spec.argv = command;
  spec.argv.insert(spec.argv.end(),
                   {"--job", job_dir, "--cmd-fd", std::to_string(cmd[0]), "--report-fd", std::to_string(rep[1])});
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
  spec.limits.processes = 1024;   // threads count against the cgroup's pids limit
  spec.limits.open_files = 1024;  // the python runner: torch's and Triton's libraries and caches
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
  // Bounded: a report line is a few hundred bytes; anything far beyond is the candidate's.
  channel_ = JsonLinesChannel(rep[0], cmd[1], ChannelLimits{64u << 10, 16});
  // A GPU round's answer is awaited without sleeping for its first 50 ms (rounds last about round_target_ms,
  // 20 ms): the wake-up after a sleep grew with the sleep's length on the H200 and would be counted as the
  // candidate's time.
  if (confinement.cuda) channel_.set_spin(0.05);
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

RunnerEnd RunnerSession::exchange(const nlohmann::json& cmd, double deadline_s) {
  if (!cmd.is_null()) (void)channel_.send(cmd);  // a runner that is gone shows when reading
  const bool lifetime = deadline_ <= deadline_s;
  auto j = channel_.receive(std::min(deadline_s, deadline_));
  if (j.ok()) {
    if (!pids_marked_ && job_) {
      first_pids_ = job_->pids();
      pids_marked_ = true;
    }
    RunnerEnd e;
    e.reply = std::move(*j);
    return e;
  }
  const std::string& code = j.error().code;
  if (code == "channel.timeout") {
    RunnerEnd e;
    e.kind = RunnerEnd::Kind::timeout;
    e.lifetime_limit = lifetime;
    stop_job(true);
    return e;
  }
  if (code == "channel.closed" || code == "channel.io") {
    // The runner's end of the report channel is gone (closed, or /dev/null put over it): it can no longer
    // answer, so it gets until this command's deadline to end on its own, as a silent runner would.
    const double until = std::min(deadline_s, deadline_);
    while (job_ && !job_->finished() && now_s() < until) usleep(5000);
    if (job_ && !job_->finished()) {
      RunnerEnd e;
      e.kind = RunnerEnd::Kind::timeout;
      e.lifetime_limit = lifetime;
      stop_job(true);
      return e;
    }
    return ended();
  }
  RunnerEnd e;
  e.kind = RunnerEnd::Kind::protocol;
  e.protocol_error = code + ": " + j.error().message;
  stop_job(true);
  return e;
}

void RunnerSession::start_lifetime(double deadline_s) { deadline_ = std::min(deadline_, deadline_s); }

bool RunnerSession::freeze() { return job_ && job_->freeze(2.0); }

void RunnerSession::thaw() {
  if (job_) job_->thaw();
}

void RunnerSession::note_pids() const {
  if (!job_) return;
  for (pid_t p : job_->pids())
    if (std::find(pids_seen_.begin(), pids_seen_.end(), static_cast<int>(p)) == pids_seen_.end() &&
        pids_seen_.size() < 4096)
      pids_seen_.push_back(static_cast<int>(p));
}

std::string RunnerSession::maps() const {
  if (!job_) return {};
  note_pids();
  std::string all;
  for (pid_t p : job_->pids()) {
    std::ifstream in("/proc/" + std::to_string(p) + "/maps");
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
    if (all.size() > (16u << 20)) break;
  }
  return all;
}

int RunnerSession::end_helpers() {
  if (!job_ || !pids_marked_) return 0;
  int killed = 0;
  for (pid_t p : job_->pids()) {
    if (std::find(first_pids_.begin(), first_pids_.end(), p) != first_pids_.end()) continue;
    if (::kill(p, SIGKILL) == 0) ++killed;
  }
  return killed;
}

void RunnerSession::finish() {
  note_pids();
  if (job_) job_->thaw();
  if (channel_.open()) {
    (void)channel_.send(nlohmann::json{{"op", "exit"}});
    channel_.close();
  }
  if (job_) {
    // Give it a moment to exit on its own, then make sure.
    for (int i = 0; i < 100 && !job_->finished(); ++i) usleep(10000);
    stop_job(!job_->finished());
  }
}

}  // namespace kf::eval
