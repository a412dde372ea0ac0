#include "evaluator/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <algorithm>

extern char** environ;

namespace kf::eval {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::map<std::string, std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  return env;
}

namespace {

// Runs between fork and exec: no allocation (the parent may be multi-threaded).
[[noreturn]] void child_exec(const ChildSpec& spec, const std::vector<char*>& argv, const std::vector<char*>& envp,
                             const std::vector<std::string>& exec_paths, int err_fd) {
  setpgid(0, 0);
  signal(SIGPIPE, SIG_DFL);
  if (err_fd >= 0) {
    // stdout too: a child's prints must never reach the supervisor's stdout (e.g. `kforge eval --json`).
    // Descriptors given in spec.fds (the oracle's protocol on fd 1) are applied afterwards and win.
    dup2(err_fd, 1);
    dup2(err_fd, 2);
  }
  // Move wanted descriptors to high numbers first so that the dup2 targets cannot clobber sources.
  constexpr size_t kMaxFds = 16;
  int src_fd[kMaxFds];
  int dst_fd[kMaxFds];
  size_t count = std::min(kMaxFds, spec.fds.size());
  for (size_t i = 0; i < count; ++i) {
    src_fd[i] = fcntl(spec.fds[i].first, F_DUPFD_CLOEXEC, 100);
    dst_fd[i] = spec.fds[i].second;
  }
  for (size_t i = 0; i < count; ++i) dup2(src_fd[i], dst_fd[i]);
  // Close everything else (descriptors of the supervisor must not leak into the job).
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;
  for (int fd = 3; fd < max_fd; ++fd) {
    bool keep = false;
    for (size_t i = 0; i < count; ++i) keep = keep || fd == dst_fd[i];
    if (!keep) close(fd);
  }
  if (spec.cpu_limit_s > 0) {
    rlimit rl{static_cast<rlim_t>(spec.cpu_limit_s), static_cast<rlim_t>(spec.cpu_limit_s + 1)};
    setrlimit(RLIMIT_CPU, &rl);
  }
  if (!spec.workdir.empty() && chdir(spec.workdir.c_str()) != 0) _exit(126);
  for (const auto& path : exec_paths) execve(path.c_str(), argv.data(), envp.data());
  _exit(127);
}

}  // namespace

Result<pid_t> spawn(const ChildSpec& spec) {
  if (spec.argv.empty()) return make_error("process.argv", "nothing to run (empty argv)");
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  // argv[0] without a slash is searched in PATH of the given environment (resolved before fork).
  std::vector<std::string> exec_paths;
  if (spec.argv[0].find('/') != std::string::npos) {
    exec_paths.push_back(spec.argv[0]);
  } else {
    std::string path = spec.env.count("PATH") ? spec.env.at("PATH") : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      exec_paths.push_back(path.substr(start, end - start) + "/" + spec.argv[0]);
      start = end + 1;
    }
  }
  int err_fd = -1;
  if (!spec.stderr_file.empty()) {
    err_fd = open(spec.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd < 0)
      return make_error("process.stderr", "cannot open " + spec.stderr_file + ": " + std::strerror(errno));
  }
  pid_t pid = fork();
  if (pid < 0) {
    if (err_fd >= 0) close(err_fd);
    return make_error("process.fork", std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) child_exec(spec, argv, envp, exec_paths, err_fd);
  setpgid(pid, pid);  // also from the parent: no race with kill_tree
  if (err_fd >= 0) close(err_fd);
  return pid;
}

void kill_tree(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Stragglers in the group that were reparented: keep killing until the group is empty.
  for (int i = 0; i < 50 && !tree_gone(pid); ++i) {
    kill(-pid, SIGKILL);
    usleep(2000);
  }
}

bool tree_gone(pid_t pid) { return kill(-pid, 0) != 0 && errno == ESRCH; }

Result<JobResult> run_job(ChildSpec spec, double timeout_s, size_t cap) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return make_error("process.pipe", std::string("pipe: ") + std::strerror(errno));
  spec.fds.push_back({out[1], 1});
  spec.fds.push_back({out[1], 2});
  double t0 = now_s();
  auto pid = spawn(spec);
  close(out[1]);
  if (!pid.ok()) {
    close(out[0]);
    return pid.error();
  }
  JobResult res;
  char buf[65536];
  bool timed_out = false;
  for (;;) {
    double left = timeout_s - (now_s() - t0);
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t room = cap > res.output.size() ? cap - res.output.size() : 0;
    if (static_cast<size_t>(n) > room) res.truncated = true;
    res.output.append(buf, std::min(room, static_cast<size_t>(n)));
  }
  close(out[0]);
  if (timed_out) {
    kill_tree(*pid);
    res.status = JobResult::Status::timeout;
  } else {
    int status = 0;
    while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
      res.status = JobResult::Status::signaled;
      res.signal = WTERMSIG(status);
    } else {
      res.exit_code = WEXITSTATUS(status);
    }
    kill(-*pid, SIGKILL);  // nothing of the job may outlive it
  }
  res.wall_s = now_s() - t0;
  return res;
}

}  // namespace kf::eval
