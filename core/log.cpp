#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/secrets.h"
#include "core/time.h"

namespace kf::log {
namespace {
std::atomic<int> g_level{static_cast<int>(Level::info)};
std::mutex g_mutex;

const char* name(Level l) {
  switch (l) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warn: return "warn";
    case Level::error: return "error";
  }
  return "?";
}
}  // namespace

void set_level(Level l) { g_level = static_cast<int>(l); }
Level level() { return static_cast<Level>(g_level.load()); }

void write(Level l, std::string_view message) {
  if (static_cast<int>(l) < g_level.load()) return;
  const std::string text = secrets::redact(message);
  const std::string stamp = utc_timestamp(UtcFormat::clock);
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "[%s %s] %s\n", stamp.c_str(), name(l), text.c_str());
}

}  // namespace kf::log
