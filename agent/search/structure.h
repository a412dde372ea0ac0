#pragma once
// A kernel's structure, coarsely: what a search compares to keep different designs alive (beam's places, evolve's
// population and its diversity term). Two kernels of one structure are variations of one design (a loop order,
// an unroll factor); a different structure is a different design (tiling adds loops, shared memory, tensor-core
// or vector instructions), whose first version is often slower than the tuned old design it may overtake.
#include <string>
#include <string_view>

namespace kf::agent::search {

// From a kernel's source, or a model's answer (then only the code inside its ``` fences): its loop count (C's
// `for (` and `while (`, Python's `for ...:` and `while ...:` lines) and which of shared memory, matrix
// instructions and vector types it uses, e.g. "loops=7" or "loops=11 shared mma". A coarse heuristic over the
// text (a commented-out loop counts), never a verdict.
std::string kernel_structure(std::string_view source);

}  // namespace kf::agent::search
