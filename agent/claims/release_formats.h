#pragma once
// The published releases `kforge import` reads besides KernelBench's run folders (agent/claims/kernelbench_formats.h):
//   cuda-l1                  CUDA-L1's optimized_cuda_code/<gpu>.json: JSON lines, one per KernelBench task
//                            (level_id, task_id, ref_code, custom_code, score_default, score_torch_compile_default,
//                            score_torch_compile_reduce_overhead, score_cuda_graph, score_cudnn); one run per GPU;
//   kernelbench-leaderboard  the KernelBench leaderboard's docs/assets/raw_data.json (problem_id, level, model,
//                            code, torch_speedup, torch_compile_speedup, baseline_torch_time,
//                            baseline_torch_compile_time, kernel_eval_time, file) with the problems of the day in
//                            docs/assets/problems/l<L>_p<P>.py; one run per model. Its problem_id counts from 0
//                            (problem P is problem_id P - 1), as its data.json, which names each solution's
//                            problem file, shows; where data.json names a solution's problem, that is taken;
//   kernelbench-run-v2       a KernelBench run folder of problem_<P>_kernel.py files with detailed_results.json
//                            (run_info, config, results[].eval_result) or, while a run is going, checkpoint.json.
// Each becomes runs of solutions with their claims; oddities are warnings, a value that cannot be read is
// absent, and an entry that cannot be used is counted, never a crash. docs/candidates.md.
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "corpus/record.h"

namespace kf::agent {

struct PublishedSolution {
  int level = 0;
  int problem = 0;
  int sample = 0;
  std::string file;    // the name it goes by in the release (stored as the record's imported.file)
  std::string origin;  // where the release keeps it: a file, or file#entry
  std::string code;
  corpus::Claim claim;         // without reference and task quality (the importer adds those)
  std::string reference_code;  // the release's own reference problem; "" when it ships none
  std::string reference_origin;
  std::vector<std::string> warnings;
};

struct PublishedRun {
  std::string name;
  std::string path;    // the file or folder read
  std::string format;  // cuda-l1 | kernelbench-leaderboard | kernelbench-run-v2
  int level = 0;       // 0 when its solutions span levels
  std::vector<PublishedSolution> solutions;
  int entries = 0;                   // entries the source holds (JSON lines, list members, results)
  int entries_without_solution = 0;  // entries with no code or no solution file (nothing to import)
  int unreadable = 0;                // entries that could not be read
  int solutions_without_entry = 0;   // solution files no results entry names (imported without a claim)
  std::vector<std::string> warnings;
};

// What a path holds, when it is one of these releases: "cuda-l1" for a CUDA-L1 JSON-lines file,
// "cuda-l1-folder" for a folder of them (optimized_cuda_code/), "kernelbench-leaderboard" for raw_data.json
// or a folder holding it (the repository, docs/ or docs/assets/), "kernelbench-run-v2" for a run folder of
// problem_<P>_kernel.py files. nullopt otherwise.
std::optional<std::string> release_format(const std::string& path);

// The CUDA-L1 files of a folder, sorted (the JSON-lines files whose first line is a CUDA-L1 entry).
std::vector<std::string> cuda_l1_files(const std::string& folder);

// One CUDA-L1 file: one run named cuda-l1-<file stem>, its hardware from the stem (3090 -> RTX 3090,
// a100 -> A100, h100 -> H100, h20 -> H20, l40 -> L40; another stem as written).
Result<PublishedRun> read_cuda_l1(const std::string& file);

// The leaderboard's raw_data.json (or a folder holding it): one run per model, named leaderboard-<model>.
Result<std::vector<PublishedRun>> read_leaderboard(const std::string& path);

// A problem_<P>_kernel.py run folder. `level`: --level, else run_info.level, else the folder name's level<L>.
Result<PublishedRun> read_kernelbench_run_v2(const std::string& folder, std::optional<int> level);

// "problem_12_kernel.py" -> 12; nullopt for any other name.
std::optional<int> parse_v2_solution_name(const std::string& file_name);

}  // namespace kf::agent
