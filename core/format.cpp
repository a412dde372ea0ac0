#include "core/format.h"

#include <cstdio>

namespace kf {

std::string format_fixed(double v, int decimals) {
  char buf[352];  // the longest double in %f form fits
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_significant(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace kf
