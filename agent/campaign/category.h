#pragma once
// The problem categories reports break results down by.
#include <string>
#include <vector>

namespace kf::agent {

// matmul, conv, conv-transposed, activation, norm, pooling, reduction, loss, scan, attention,
// recommender, and "other" for anything unrecognised.
const std::vector<std::string>& known_categories();

// From a module-level `KFORGE_CATEGORY = "..."` in the source when present, else from the file name
// (KernelBench names such as 50_conv_standard_2D_...), else from the torch calls in the source.
std::string categorize_problem(const std::string& file_name, const std::string& source);

}  // namespace kf::agent
