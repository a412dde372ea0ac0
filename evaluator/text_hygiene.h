#pragma once
// Text that came from a candidate (its stdout/stderr, a runner's report, compiler output quoting its
// source) made safe for a terminal, the corpus and a model: escape sequences (CSI, OSC, DCS, ...) and
// control characters removed (newline and tab kept), invalid UTF-8 and C1 controls replaced by '?', and
// the result capped at `max_bytes` (the first part kept, with a note of how much was cut).
#include <cstddef>
#include <string>

namespace kf::eval {

std::string clean_text(const std::string& text, size_t max_bytes = 16384);

}  // namespace kf::eval
