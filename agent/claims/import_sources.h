#pragma once
// What `kforge import` reads (agent/claims/kernelbench_import.h): its sources resolved into runs — KernelBench run
// folders, folders of them, releases in one of the published formats (agent/claims/release_formats.h) and single
// solution files — each with its name and level decided, and a solution file's text read within bounds.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/claims/kernelbench_import.h"
#include "agent/claims/release_formats.h"
#include "core/result.h"

namespace kf::agent {

struct SourceRun {
  std::string name;
  std::string path;  // "" for single files
  std::vector<std::filesystem::path> files;
  bool singles = false;
  int level = 0;                          // a run folder's level: its eval_results.json names problem numbers only
  std::optional<PublishedRun> published;  // a release read whole (agent/claims/release_formats.h)
};

// The runs of every source of `options`. Errors: a path that is none of the formats, a run whose solutions span
// several levels without --level, two runs of one name, single files without --problem, nothing to import.
Result<std::vector<SourceRun>> collect_sources(const ImportOptions& options);

// The solution's text, unless it cannot be read or is too large to be one.
Result<std::string> read_solution(const std::filesystem::path& file);

}  // namespace kf::agent
