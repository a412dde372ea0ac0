#pragma once
// `kforge import`: published KernelBench runs (run folders, folders of them, single solution files) into
// a kforge corpus of `imported` records that keep each run's claims (docs/corpus.md), ready for
// `kforge reverify` and `kforge report`. Importing the same solution again adds nothing: a solution is
// identified by (source run, level, problem, sample, sha256 of its file). docs/candidates.md.
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
};

// What one import did, per source run.
struct ImportedRun {
  std::string name;
  std::string path;                   // the run folder ("" for single files)
  int level = 0;                      // 0 when the files span no single level (single files)
  int solutions = 0;                  // solution files found (of the level)
  int added = 0;                      // new records
  int already = 0;                    // imported before (same run, level, problem, sample and sha256)
  int claimed_compiled = 0, claimed_correct = 0, claimed_faster = 0;  // of the solutions found
  std::set<int> missing_problems;     // problem numbers the dataset lacks (their solutions are skipped)
  int skipped = 0;                    // solutions not imported: missing problem, unreadable file
  int unreadable_entries = 0;         // eval_results.json entries that could not be read
  int entries_without_file = 0;       // entries whose solution file is not in the folder
  int without_entry = 0;              // solutions eval_results.json has no entry for (no claim)
  int warnings = 0;                   // warnings logged for this run
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

// The summary `kforge import` prints: one row per source run.
std::string format_import_result(const ImportResult& result);

}  // namespace kf::agent
