#pragma once
// A python script run as a sandboxed job (the static check, the build recorder): a private
// folder holding the script and its inputs, the interpreter's installation read-only, no network, no GPU,
// an allowlisted environment, time and memory limits. The folder goes away with the ScratchDir.
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "evaluator/kernelbench/python_env.h"
#include "sandbox/launcher.h"

namespace kf::eval::kernelbench {

// A private temporary folder, removed on destruction.
class ScratchDir {
 public:
  static Result<ScratchDir> create(const std::string& prefix);  // under TMPDIR (or /tmp)
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ScratchDir(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

struct PythonJob {
  std::vector<std::string> args;             // after the interpreter, e.g. {"-I", "-S", "static_check.py", ...}
  std::map<std::string, std::string> files;  // written into the job folder first: name -> contents
  double timeout_s = 60;
  uint64_t memory_bytes = 4ull << 30;
  size_t output_bytes = 64 << 10;
  // compile: /dev holds only null. A job that imports torch needs the runner profile's /dev/urandom.
  sandbox::Profile profile = sandbox::Profile::compile;
};

// Runs the job in `folder` (which must exist). Err only when the sandbox could not be set up.
Result<sandbox::Outcome> run_python_job(const PythonEnv& env, const std::string& folder, const PythonJob& job);

// The text of one of kforge's python scripts (data_path("evaluator/kernelbench/" + name)).
Result<std::string> kernelbench_script(const std::string& name);

}  // namespace kf::eval::kernelbench
