#pragma once
// `kforge import`: published KernelBench solutions into a kforge corpus of `imported` records that keep each
// claim (docs/corpus.md), ready for `kforge reverify` and `kforge report`. Sources: KernelBench run folders
// (level_<L>_problem_<P>_sample_<S>_kernel.py + eval_results.json, or problem_<P>_kernel.py +
// detailed_results.json), folders of them, single solution files, CUDA-L1's <gpu>.json files (or their
// folder) and the KernelBench leaderboard's raw_data.json (agent/claims/release_formats.h). Each solution is
// classified from its text (agent/claims/solution_kinds.h) and, where the release ships its reference, that
// reference is compared with the dataset's problem (agent/claims/reference_drift.h). Importing the same solution
// again adds nothing: a solution is identified by (source run, level, problem, sample, sha256 of its text).
// docs/candidates.md.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::agent {

struct ImportOptions {
  std::vector<std::string> sources;  // run folders, folders of run folders, or .py solution files
  std::string out;                   // the corpus folder
  std::string kernelbench;           // dataset folder holding level1/, level2/, ...
  std::optional<int> level;          // only this level (and the level of an eval_results.json)
  std::string baseline;              // KernelBench baseline timing file; "" = no speedup claims
  std::string name;                  // the run name of one run folder, or of the single files
  std::string problem;               // the problem file of single solution files
  std::string audit;                 // `kforge audit --json-file` output: marks claims on degenerate problems
};

// What one import did, per source run.
struct ImportedRun {
  std::string name;
  std::string path;   // the run folder ("" for single files)
  int level = 0;      // 0 when the files span no single level (single files)
  int solutions = 0;  // solution files found (of the level)
  int added = 0;      // new records
  int already = 0;    // imported before (same run, level, problem, sample and sha256)
  int claimed_compiled = 0, claimed_correct = 0, claimed_faster = 0;  // of the solutions found
  std::set<int> missing_problems;        // problem numbers the dataset lacks (their solutions are skipped)
  int skipped = 0;                       // solutions not imported: missing problem, unreadable file
  int unreadable_entries = 0;            // eval_results.json entries that could not be read
  int entries_without_file = 0;          // entries whose solution file is not in the folder
  int without_entry = 0;                 // solutions eval_results.json has no entry for (no claim)
  int warnings = 0;                      // warnings logged for this run
  std::string format;                    // kernelbench-run, kernelbench-run-v2, cuda-l1, kernelbench-leaderboard, files
  std::string model;                     // the model the release names ("" when none)
  std::string hardware;                  // the hardware it states ("" when none)
  int entries = 0;                       // entries its results file holds (JSON lines, list members, results)
  std::map<std::string, int> baselines;  // claims with a speedup, per baseline kind
  std::map<std::string, int> kinds;      // solutions per kind (agent/claims/solution_kinds.h), of those imported
  int references_compared = 0;           // solutions whose own reference was compared with the dataset's problem
  int references_differ = 0;             // ... and found to differ (reference_differs)
  int on_degenerate = 0, on_fooled = 0;  // imported claims on problems the audit finds degenerate / fooled
  // Reference drift, by (level, problem): what changed and the one-line summary.
  std::map<std::pair<int, int>, std::pair<std::vector<std::string>, std::string>> drift;
};

struct ImportResult {
  std::string out;
  std::string run_id;
  std::vector<ImportedRun> runs;
};

// Imports every source. Errors: bad options or sources (a path that is not a run folder or solution
// file, a run whose solutions span several levels without --level), an unreadable baseline file, a
// corpus that cannot be written. Oddities inside published files are warnings (logged, and kept on the
// record), never errors.
Result<ImportResult> import_kernelbench(const ImportOptions& options);

// The summary `kforge import` prints: one row per source run, then per run what its solutions are and the
// problems whose reference differs from the dataset's.
std::string format_import_result(const ImportResult& result);

}  // namespace kf::agent
