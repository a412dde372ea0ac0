#pragma once
// Nsight Compute's `--csv` output (one row per launch, section and metric; docs/evaluator.md, "Profile
// feedback") read into a KernelProfile. The text is hostile input: ncu interleaves the profiled program's own
// output and its ==PROF== lines with the rows, the program is a candidate's, and ncu's layout changes between
// releases (columns added, metrics renamed, a trailing comma). Anything unreadable is left out, never fatal.
#include <optional>
#include <string_view>

#include "verdict/kernel_profile.h"

namespace kf::eval {

// The longest launch's figures (by its duration, else the first launch); nullopt when no row carries any of
// the figures KernelProfile holds (no header, an error message instead of rows, empty output).
std::optional<KernelProfile> parse_ncu_csv(std::string_view text);

}  // namespace kf::eval
