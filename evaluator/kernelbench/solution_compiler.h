#pragma once
// compile() of a kernelbench solution (.py): the static check (never executes it), the build recorder
// (imports it in the sandbox to see its load_inline calls), then kforge's own build of each extension. The
// whole result is cached by the solution's text and the toolchain. docs/candidates.md, "The build".
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "evaluator/evaluator.h"
#include "evaluator/kernelbench/extension_build.h"
#include "evaluator/kernelbench/python_env.h"

namespace kf::eval::kernelbench {

struct SolutionConfig {
  Backend backend = Backend::host;
  std::string python;  // the oracle's interpreter: solutions are built for and run by it
  std::string cuda_home;
  std::string gpu_arch;
  std::string cache_dir;
  double timeout_s = 300;  // each build job
  bool allow_vendor_libs = false;
  bool use_pch = true;
};

class SolutionCompiler {
 public:
  explicit SolutionCompiler(SolutionConfig config);
  Compiled compile(const std::string& source_path);  // thread-safe; needs no GPU
  // The interpreter's facts, probed on first use.
  Result<PythonEnv> python_env();

 private:
  Result<ExtensionBuilder*> builder();
  SolutionConfig config_;
  std::mutex mutex_;
  std::optional<Result<PythonEnv>> env_;
  std::unique_ptr<ExtensionBuilder> builder_;
};

}  // namespace kf::eval::kernelbench
