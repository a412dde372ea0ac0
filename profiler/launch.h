#pragma once
// Running the profiled program with the injection library's environment.
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace kf::profiler {

// Runs argv[0] (searched in PATH) with the current environment plus `env`, waits for it, and returns its
// exit status (128 + signal number when a signal ended it). stdin/stdout/stderr are inherited.
Result<int> run_program(const std::vector<std::string>& argv,
                        const std::vector<std::pair<std::string, std::string>>& env);

// Where libkforge-cupti.so is: `explicit_path` when given, else $KFORGE_CUPTI_LIB, else next to the kforge
// executable, else in ../lib, ../lib64 or ../lib/<multiarch> beside it.
Result<std::string> find_injection_library(const std::string& explicit_path);

}  // namespace kf::profiler
