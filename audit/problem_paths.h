#pragma once
// Turns the `--problems DIR|FILE...` arguments into an ordered list of KernelBench-format files.
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::audit {

// A FILE is taken as is (it must exist and end in .py); a DIR contributes its *.py files (not
// recursive, names starting with '_' skipped) ordered by their leading number ("2_x" before "10_x"),
// then by name. Errors (code "audit.problems") name the offending path.
Result<std::vector<std::string>> expand_problem_paths(const std::vector<std::string>& arguments);

}  // namespace kf::audit
