#pragma once
// Reference drift: a published claim was made against the reference problem of its day (CUDA-L1 ships it as
// ref_code, the KernelBench leaderboard as problems/l<L>_p<P>.py); KernelBench has changed problems since
// (v0.2 replaced level 1 problem 12's reference with a faster one). Comparing the two sources, normalised,
// tells whether a claim is against the problem kforge would judge it on, and a one-line summary says what
// changed.
#include <string>
#include <vector>

namespace kf::agent {

// One logical line of a problem's source, normalised: comments, docstrings and blank lines dropped,
// whitespace collapsed, `super(Model, self).__init__()` written `super().__init__()`. `section` is the
// enclosing function or class ("forward", "__init__", "get_inputs", "Model", "module").
struct NormalisedLine {
  std::string text;
  std::string section;
};
std::vector<NormalisedLine> normalise_problem_source(const std::string& source);

// Module-level constant assignments ("N = 4096", "batch_size = 16"), by name, as written (normalised).
std::vector<std::pair<std::string, std::string>> module_constants(const std::vector<NormalisedLine>& lines);

struct ReferenceComparison {
  bool differs = false;
  // What changed, in this order: "computation" (the Model class or other functions), "sizes" (module
  // constants), "inputs" (get_inputs), "init" (get_init_inputs). KernelBench's later versions changed sizes
  // and input distributions of most problems; a changed computation is rarer and matters more.
  std::vector<std::string> changes;
  // One line: what changed ("computation, sizes: 4 lines differ; ..."), the constants that changed (they decide
  // get_inputs' shapes), then the first changed lines per section ("forward: `return torch.diag(A) @ B` -> `return
  // A.unsqueeze(1) * B`"); "" when the same.
  std::string summary;
  int changed_lines = 0;  // lines of either side outside the longest common subsequence
};

// `claimed` is the reference a claim was made against, `current` the dataset's problem.
ReferenceComparison compare_references(const std::string& claimed, const std::string& current);

}  // namespace kf::agent
