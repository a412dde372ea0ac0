#include "profiler/launch.h"

#include <cstdlib>
#include <filesystem>

#include "core/child_process.h"

namespace kf::profiler {

Result<int> run_program(const std::vector<std::string>& argv,
                        const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return make_error("profile.no_command", "no command to profile: add `-- COMMAND ARGS...`.");
  ChildCommand command;
  command.argv = argv;
  for (const auto& [k, v] : env) command.env[k] = v;
  // Ctrl-C reaches the child through the terminal; the supervisor stays to collect what it recorded.
  auto status = run_attached(command, /*ignore_interrupts=*/true);
  if (!status) return make_error("profile.exec", status.error().message);
  return *status;
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
    for (const fs::path& candidate : {dir / "libkforge-cupti.so", dir / ".." / "lib" / "libkforge-cupti.so",
                                      dir / ".." / "lib64" / "libkforge-cupti.so",
                                      dir / ".." / "lib" / "x86_64-linux-gnu" / "libkforge-cupti.so"}) {
      if (usable(candidate)) return fs::weakly_canonical(candidate, ec).string();
    }
  }
  return make_error("profile.no_library",
                    "libkforge-cupti.so was not found next to kforge. It is built only where the CUDA toolkit with "
                    "CUPTI is installed (rebuild with CUDA), or pass --inject-lib PATH / set KFORGE_CUPTI_LIB.");
}

}  // namespace kf::profiler
