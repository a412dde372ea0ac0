#pragma once
// Numbers as text for reports, logs and messages, the one place they are formatted.
#include <string>

namespace kf {

// `v` with `decimals` digits after the point: format_fixed(1.23456, 2) == "1.23".
std::string format_fixed(double v, int decimals);
// `v` with at most `digits` significant digits, %g style: format_significant(0.000123456, 3) == "0.000123".
std::string format_significant(double v, int digits);

}  // namespace kf
