#include "evaluator/runner_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "evaluator/process.h"

namespace kf::eval {

RunnerSession::~RunnerSession() { finish(); }

Status RunnerSession::start(const std::string& runner, const std::string& job_dir,
                            std::map<std::string, std::string> env, double deadline_s) {
  int cmd[2], rep[2];
  if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0)
    return make_error("harness.runner", std::string("cannot create runner pipes: ") + std::strerror(errno));
  ChildSpec spec;
  spec.argv = {runner, "--job", job_dir, "--cmd-fd", "3", "--report-fd", "4"};
  spec.env = std::move(env);
  spec.workdir = job_dir;
  spec.fds = {{cmd[0], 3}, {rep[1], 4}};
  stderr_path_ = job_dir + "/runner.stderr";
  spec.stderr_file = stderr_path_;
  // TODO(sandbox): launch through kf::sandbox::run (Profile::runner) once it is available.
  auto pid = spawn(spec);
  close(cmd[0]);
  close(rep[1]);
  if (!pid.ok()) {
    close(cmd[1]);
    close(rep[0]);
    return pid.error();
  }
  pid_ = *pid;
  cmd_fd_ = cmd[1];
  report_fd_ = rep[0];
  deadline_ = deadline_s;
  return ok_status();
}

RunnerEnd RunnerSession::ended() {
  RunnerEnd e;
  e.kind = RunnerEnd::Kind::crashed;
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  if (r == pid_) {
    if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  }
  kill(-pid_, SIGKILL);
  std::ifstream in(stderr_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  e.stderr_tail = s.size() > 1500 ? s.substr(s.size() - 1500) : s;
  pid_ = -1;
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
      kill_tree(pid_);
      tree_empty_ = tree_gone(pid_);
      pid_ = -1;
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
  if (pid_ > 0) {
    // Give it a moment to exit on its own, then make sure.
    for (int i = 0; i < 100; ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) break;
      usleep(10000);
    }
    kill_tree(pid_);
    tree_empty_ = tree_gone(pid_);
    pid_ = -1;
  }
  if (report_fd_ >= 0) close(report_fd_);
  report_fd_ = -1;
}

}  // namespace kf::eval
