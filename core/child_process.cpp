#include "core/child_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/time.h"

extern char** environ;

namespace kf {
namespace bp = boost::process;

namespace {

// Sets RLIMIT_CPU in the child, between fork and exec.
struct CpuLimit : bp::extend::handler {
  rlim_t seconds = 0;
  template <class Executor>
  void on_exec_setup(Executor&) const {
    if (seconds == 0) return;
    rlimit limit{seconds, seconds};
    setrlimit(RLIMIT_CPU, &limit);
  }
};

// Marks every descriptor above stderr close-on-exec in the child, so that it inherits only stdin, stdout
// and stderr. (Boost 1.74's bp::limit_handles also closes the pipe a merged stdout+stderr goes to.)
struct StdioOnly : bp::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
    const long max_fd = std::min(::sysconf(_SC_OPEN_MAX), 1L << 16);
    for (int fd = 3; fd < max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
};

struct Prepared {
  std::string exe;
  std::vector<std::string> args;
  bp::environment env;
  std::string workdir;
  CpuLimit cpu;
};

Result<Prepared> prepare(const ChildCommand& command) {
  if (command.argv.empty() || command.argv[0].empty()) return make_error("child.no_command", "no command to run");
  Prepared p;
  p.exe = find_executable(command.argv[0]);
  if (p.exe.empty()) {
    return make_error("child.not_found", "cannot run " + command.argv[0] +
                                             ": no such program in PATH (check the "
                                             "command name and PATH)");
  }
  p.args.assign(command.argv.begin() + 1, command.argv.end());
  for (const auto& [k, v] : command.replace_environment ? command.env : environment_with(command.env)) p.env[k] = v;
  p.workdir = command.workdir.empty() ? "." : command.workdir;
  if (command.cpu_limit_s > 0) p.cpu.seconds = static_cast<rlim_t>(std::ceil(command.cpu_limit_s));
  return p;
}

Error spawn_error(const ChildCommand& command, const std::error_code& ec) {
  return make_error("child.spawn", "cannot run " + command.argv[0] + ": " + ec.message());
}

// 128 + signal for a signal, else the exit code.
int status_code(int native) {
  if (WIFEXITED(native)) return WEXITSTATUS(native);
  if (WIFSIGNALED(native)) return 128 + WTERMSIG(native);
  return 1;
}

}  // namespace

std::map<std::string, std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos && eq > 0) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  return env;
}

std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

Result<int> run_attached(const ChildCommand& command, bool ignore_interrupts) {
  auto p = prepare(command);
  if (!p) return p.error();
  std::error_code ec;
  bp::child child(bp::exe = p->exe, bp::args = p->args, p->env, bp::start_dir = p->workdir, p->cpu, ec);
  if (ec) return spawn_error(command, ec);
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  if (ignore_interrupts) {
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
  }
  child.wait(ec);
  if (ignore_interrupts) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
  }
  if (ec) return make_error("child.wait", "waiting for " + command.argv[0] + " failed: " + ec.message());
  return status_code(child.native_exit_code());
}

Result<CapturedRun> run_captured(const ChildCommand& command, double timeout_s, size_t cap, CaptureMode capture) {
  auto p = prepare(command);
  if (!p) return p.error();
  CapturedRun run;
  const double start = now_s();
  bp::pipe out;
  bp::group group;
  std::error_code ec;
  bp::child child = capture == CaptureMode::stdout_and_stderr
                        ? bp::child(bp::exe = p->exe, bp::args = p->args, p->env, bp::start_dir = p->workdir, p->cpu,
                                    group, bp::std_in<bp::null, (bp::std_out & bp::std_err)> out, StdioOnly{}, ec)
                        : bp::child(bp::exe = p->exe, bp::args = p->args, p->env, bp::start_dir = p->workdir, p->cpu,
                                    group, bp::std_in<bp::null, bp::std_out> out, StdioOnly{}, ec);
  if (ec) return spawn_error(command, ec);
  ::close(out.native_sink());  // the child holds the write end now
  out.assign_sink(-1);
  // The reader drains the pipe to its end (every writer gone), keeping the first `cap` bytes.
  std::thread reader([&] {
    char buf[8192];
    for (;;) {
      const ssize_t n = ::read(out.native_source(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      const size_t room = cap > run.output.size() ? cap - run.output.size() : 0;
      run.output.append(buf, std::min(room, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) > room) run.truncated = true;
    }
  });
  bool timed_out = false;
  while (child.running(ec) && !ec) {
    if (timeout_s > 0 && now_s() - start > timeout_s) {
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  group.terminate(ec);  // the child on a timeout, and whatever it left behind holding the pipe
  child.wait(ec);
  reader.join();
  run.wall_s = now_s() - start;
  const int native = child.native_exit_code();
  if (timed_out) {
    run.status = CapturedRun::Status::timeout;
  } else if (WIFSIGNALED(native)) {
    run.status = CapturedRun::Status::signaled;
    run.signal = WTERMSIG(native);
  } else {
    run.exit_code = status_code(native);
  }
  return run;
}

struct BackgroundChild::Impl {
  bp::child child;
};

BackgroundChild::BackgroundChild(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<BackgroundChild>> BackgroundChild::start(const ChildCommand& command,
                                                                const std::string& stdout_path,
                                                                const std::string& stderr_path) {
  auto p = prepare(command);
  if (!p) return p.error();
  std::error_code ec;
  auto impl = std::make_unique<Impl>();
  impl->child = bp::child(bp::exe = p->exe, bp::args = p->args, p->env, bp::start_dir = p->workdir, p->cpu,
                          bp::std_in<bp::null, bp::std_out> stdout_path, bp::std_err > stderr_path, ec);
  if (ec) return spawn_error(command, ec);
  return std::unique_ptr<BackgroundChild>(new BackgroundChild(std::move(impl)));
}

bool BackgroundChild::running() {
  std::error_code ec;
  return impl_->child.running(ec);
}

int BackgroundChild::stop(int signal) {
  std::error_code ec;
  if (signal != 0 && impl_->child.running(ec)) ::kill(impl_->child.id(), signal);
  impl_->child.wait(ec);
  return status_code(impl_->child.native_exit_code());
}

BackgroundChild::~BackgroundChild() { stop(); }

}  // namespace kf
