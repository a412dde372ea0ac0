#pragma once
// Resolves `--problems DIR|FILE|LIST` into problem files.
#include <string>
#include <vector>

#include "agent/campaign/loop.h"
#include "core/result.h"

namespace kf::agent {

// DIR: every *.py in it (sorted by KernelBench number, then name). FILE.py: that file. A comma-separated
// list of those, or a text file (any other extension) listing them one per line (relative to the list's
// folder; blank lines and # comments ignored). Names (file stems) must be unique.
Result<std::vector<ProblemInfo>> load_problem_set(const std::string& spec);

Result<ProblemInfo> load_problem(const std::string& path);

}  // namespace kf::agent
