#pragma once
// `kforge reverify DIR`: re-judges every correct kernel of a corpus with new seeds and a freshly
// timed baseline, and says which claimed speedups hold within the measured spread; imported solutions
// (`kforge import`) are judged against their run's claim (agent/claims/claim_check.h). The results go to
// DIR/reverify.json (where `kforge report` finds them) and, with --out, to that file too. Kernels are spread
// over the evaluators of --gpus / --evaluators; the table keeps the corpus order.
#include <cstdint>
#include <optional>
#include <string>

namespace kf::agent {

struct ReverifyOptions {
  std::string dir;
  std::string out;              // another JSON results file besides DIR/reverify.json; "" = none
  std::string backend;          // "" = the backend the corpus was recorded with
  std::string python;
  std::optional<uint64_t> seed; // default: a fresh random seed, recorded in the output
  bool best_only = false;       // only each unit's best kernel
  bool all = false;             // imported solutions: every one, not only those their run called correct
  bool allow_vendor_libs = false;
  bool allow_reduced_precision = false;
  std::string gpus;             // --gpus: "" (all visible on cuda, 1 on host), "all", or "0,1,..."
  int evaluators = 0;           // --evaluators N on the host backend
  int compile_jobs = 0;         // --compile-jobs: threads compiling ahead of the evaluators; 0 = a quarter of the cores
};

int run_reverify(const ReverifyOptions& options);

}  // namespace kf::agent
