#include "profiler/launch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace kf::profiler {

Result<int> run_program(const std::vector<std::string>& argv,
                        const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return make_error("profile.no_command", "no command to profile: add `-- COMMAND ARGS...`.");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child reports a failed exec through this pipe (closed on a successful exec).
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return make_error("profile.spawn", std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return make_error("profile.spawn", std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    execvp(args[0], args.data());
    const int err = errno;
    (void)!write(fds[1], &err, sizeof err);
    _exit(127);
  }
  close(fds[1]);
  int exec_errno = 0;
  const ssize_t n = read(fds[0], &exec_errno, sizeof exec_errno);
  close(fds[0]);
  // Ctrl-C reaches the child through the terminal; the supervisor stays to collect what it recorded.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  pid_t w;
  do {
    w = waitpid(pid, &status, 0);
  } while (w < 0 && errno == EINTR);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    return make_error("profile.exec", "cannot run " + argv[0] + ": " + std::strerror(exec_errno) +
                                          " (check the command name and PATH).");
  }
  if (w < 0) return make_error("profile.wait", std::string("waitpid failed: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

Result<std::string> find_injection_library(const std::string& explicit_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto usable = [&](const fs::path& p) { return fs::is_regular_file(p, ec); };
  if (!explicit_path.empty()) {
    if (usable(explicit_path)) return fs::absolute(explicit_path, ec).string();
    return make_error("profile.no_library", "the injection library " + explicit_path + " does not exist.");
  }
  if (const char* env = std::getenv("KFORGE_CUPTI_LIB"); env != nullptr && env[0] != '\0') {
    if (usable(env)) return fs::absolute(env, ec).string();
    return make_error("profile.no_library", std::string("KFORGE_CUPTI_LIB names ") + env + ", which does not exist.");
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = exe.parent_path();
    for (const fs::path& candidate :
         {dir / "libkforge-cupti.so", dir / ".." / "lib" / "libkforge-cupti.so", dir / ".." / "lib64" / "libkforge-cupti.so",
          dir / ".." / "lib" / "x86_64-linux-gnu" / "libkforge-cupti.so"}) {
      if (usable(candidate)) return fs::weakly_canonical(candidate, ec).string();
    }
  }
  return make_error("profile.no_library",
                    "libkforge-cupti.so was not found next to kforge. It is built only where the CUDA toolkit with "
                    "CUPTI is installed (rebuild with CUDA), or pass --inject-lib PATH / set KFORGE_CUPTI_LIB.");
}

}  // namespace kf::profiler
