#pragma once
// `kforge reverify DIR`: re-judges every correct kernel of a corpus with new seeds and a freshly
// timed baseline, and says which claimed speedups hold within the measured spread; imported solutions
// (`kforge import`) are judged against their run's claim (agent/claims/claim_check.h). The results go to
// DIR/reverify.json (where `kforge report` finds them) and, with --out, to that file too. Kernels are spread
// over the evaluators of --gpus / --evaluators; the table keeps the corpus order. Every judged kernel is journaled
// at once (agent/claims/reverify_journal.h): a run stopped by --time-limit or a signal continues with --resume.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kf::agent {

struct ReverifyOptions {
  std::string dir;
  std::string out;      // another JSON results file besides DIR/reverify.json; "" = none
  std::string backend;  // "" = the backend the corpus was recorded with
  std::string python;
  std::optional<uint64_t> seed;  // default: a fresh random seed, recorded in the output
  bool best_only = false;        // only each unit's best kernel
  bool all = false;              // imported solutions: every one, not only those their run called correct
  bool allow_vendor_libs = false;
  bool allow_reduced_precision = false;
  std::string gpus;         // --gpus: "" (all visible on cuda, 1 on host), "all", or "0,1,..."
  int evaluators = 0;       // --evaluators N on the host backend
  int compile_jobs = 0;     // --compile-jobs: threads compiling ahead of the evaluators; 0 = a quarter of the cores
  std::vector<int> levels;  // --levels: imported solutions of these KernelBench levels only; empty = every level
  bool resume = false;      // --resume: keep what DIR/reverify.journal holds, judge the rest with its seed
  bool restart = false;     // --restart: discard an unfinished journal and start over
  double time_limit_s = 0;  // --time-limit: start no kernel after this many seconds; 0 = no limit
};

int run_reverify(const ReverifyOptions& options);

}  // namespace kf::agent
