#pragma once
// UTC timestamps, the one place they are formatted.
#include <chrono>
#include <string>

namespace kf {

enum class UtcFormat {
  iso_ms,      // 2026-12-02T13:45:01.123Z (corpus records, manifests, the mock server's log)
  compact_ms,  // 20261202T134501.123Z     (file names)
  clock,       // 13:45:01                 (log lines)
};

std::string utc_timestamp(UtcFormat format,
                          std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

// Seconds on the steady clock (for durations and deadlines, never for dates).
double now_s();

}  // namespace kf
