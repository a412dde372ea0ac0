#include "core/time.h"

#include <cstdio>
#include <ctime>

namespace kf {

std::string utc_timestamp(UtcFormat format, std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const auto ms_since_epoch = duration_cast<milliseconds>(when.time_since_epoch()).count();
  auto secs = static_cast<std::time_t>(ms_since_epoch / 1000);
  auto ms = static_cast<int>(ms_since_epoch % 1000);
  if (ms < 0) {  // before 1970: floor, not truncate
    ms += 1000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[48];
  size_t n = 0;
  switch (format) {  // literal formats, so that -Wformat-nonliteral can check them
    case UtcFormat::iso_ms: n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm); break;
    case UtcFormat::compact_ms: n = std::strftime(text, sizeof text, "%Y%m%dT%H%M%S", &tm); break;
    case UtcFormat::clock: n = std::strftime(text, sizeof text, "%H:%M:%S", &tm); break;
  }
  if (format == UtcFormat::clock) return std::string(text, n);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, ms);
  return out;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace kf
