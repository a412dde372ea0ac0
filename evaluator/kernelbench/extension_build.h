#pragma once
// Builds load_inline extensions the way torch's load_inline lays them out, but as kforge's own sandboxed
// compile jobs: main.cpp with g++ (with a precompiled torch/extension.h when available) and cuda.cu with nvcc
// in parallel, then one link against the python's torch. Each extension is cached by sha256 of its sources,
// flags, toolchain and torch (a solution that changes only its Python code reuses it). docs/candidates.md.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "evaluator/evaluator.h"
#include "evaluator/kernelbench/extension_call.h"
#include "evaluator/kernelbench/python_env.h"

namespace kf::eval::kernelbench {

struct BuildConfig {
  Backend backend = Backend::host;
  std::string cuda_home;
  std::string gpu_arch;  // cuda: e.g. "sm_90a"
  std::string cache_dir;
  double timeout_s = 300;
  bool allow_vendor_libs = false;
  bool use_pch = true;
};

struct ExtensionBuild {
  std::string library;                               // set on success
  std::vector<Reason> failure;                       // compile_error / rejected reasons; empty on success
  VerdictKind verdict = VerdictKind::compile_error;  // the failure's (compile_error, rejected, harness_error)
  std::string output;                                // compiler output
  bool cache_hit = false;
  bool used_pch = false;
  double seconds = 0;
  bool ok() const { return failure.empty(); }
};

class ExtensionBuilder {
 public:
  ExtensionBuilder(BuildConfig config, PythonEnv env);
  ExtensionBuild build(const ExtensionCall& call);  // thread-safe
  // What every cache key of this builder depends on besides the call (toolchain, torch, flags, generator).
  const std::string& toolchain_identity();

 private:
  std::vector<std::string> common_flags(const ExtensionCall* call) const;
  std::vector<std::string> cxx_flags(const ExtensionCall* call) const;
  std::vector<std::string> cuda_flags(const ExtensionCall& call) const;
  std::vector<std::string> link_flags(const ExtensionCall& call) const;
  // The folder holding the precompiled torch/extension.h for cxx_flags() at optimisation level `level` ("" or
  // one of -O0..-O3, -Os: g++ uses a precompiled header only at the level it was built with), built once per
  // level by a job that reads no candidate input, kept read-only in the cache; "" when off or not buildable.
  std::string pch_dir(const std::string& level);

  BuildConfig config_;
  PythonEnv env_;
  std::mutex mutex_;
  std::string identity_;
  std::mutex pch_mutex_;
  std::map<std::string, std::string> pch_dirs_;  // level -> folder ("" when it could not be built)
};

}  // namespace kf::eval::kernelbench
