#include "evaluator/kernelbench/python_job.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/data_dir.h"
#include "core/files.h"

namespace fs = std::filesystem;

namespace kf::eval::kernelbench {

Result<ScratchDir> ScratchDir::create(const std::string& prefix) {
  std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    return make_error("harness.scratch", "cannot create a private folder under " + fs::temp_directory_path().string() +
                                             ": " + std::strerror(errno));
  return ScratchDir(tmpl);
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Result<std::string> kernelbench_script(const std::string& name) {
  const std::string path = data_path("evaluator/kernelbench/" + name);
  auto text = read_file(path);
  if (!text.ok())
    return make_error("harness.script_missing",
                      "kforge's script " + path + " is missing (set KFORGE_DATA_DIR to kforge's data folder)");
  return text;
}

Result<sandbox::Outcome> run_python_job(const PythonEnv& env, const std::string& folder, const PythonJob& job) {
  for (const auto& [name, contents] : job.files)
    if (auto st = write_file_atomic(folder + "/" + name, contents); !st.ok()) return st.error();
  sandbox::Spec spec;
  spec.argv = {env.executable};
  spec.argv.insert(spec.argv.end(), job.args.begin(), job.args.end());
  // An allowlist: no PYTHON* variables (the interpreter runs isolated anyway), no keys.
  spec.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", folder}, {"LANG", "C.UTF-8"}};
  spec.workdir = folder;
  spec.readonly_paths = env.readonly_paths;
  spec.profile = job.profile;
  spec.limits.wall_s = job.timeout_s;
  spec.limits.cpu_s = job.timeout_s * std::max(1u, std::thread::hardware_concurrency());
  spec.limits.memory_bytes = job.memory_bytes;
  spec.limits.processes = 256;  // torch's thread pools
  spec.limits.file_size_bytes = 256ull << 20;
  spec.limits.output_bytes = job.output_bytes;
  return sandbox::run(spec);
}

}  // namespace kf::eval::kernelbench
