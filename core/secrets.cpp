#include "core/secrets.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace kf::secrets {
namespace {
std::mutex g_mutex;
std::vector<std::string>& registry() {
  static std::vector<std::string> values;
  return values;
}
}  // namespace

void add(std::string value) {
  if (value.size() < 8) return;
  std::lock_guard lock(g_mutex);
  auto& r = registry();
  if (std::find(r.begin(), r.end(), value) == r.end()) r.push_back(std::move(value));
}

std::string redact(std::string_view text) {
  std::string out(text);
  std::lock_guard lock(g_mutex);
  for (const auto& secret : registry()) {
    for (size_t pos = out.find(secret); pos != std::string::npos; pos = out.find(secret, pos)) {
      out.replace(pos, secret.size(), "[REDACTED]");
      pos += 10;
    }
  }
  return out;
}

}  // namespace kf::secrets
