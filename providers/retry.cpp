#include "providers/retry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <curl/curl.h>

namespace kf::providers {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A non-negative decimal number and nothing else.
std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return std::nullopt;
  }
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const std::string* find_header(const HeaderMap& headers, const char* name) {
  const auto it = headers.find(name);
  return it == headers.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<double> parse_retry_after(const HeaderMap& headers, double now_epoch_s) {
  if (const auto* ms = find_header(headers, "retry-after-ms")) {
    if (auto v = parse_number(*ms)) return *v / 1000.0;
  }
  if (const auto* value = find_header(headers, "retry-after")) {
    if (auto v = parse_number(*value)) return *v;
    const std::string date(trim(*value));
    const time_t when = curl_getdate(date.c_str(), nullptr);
    if (when != -1) return std::max(0.0, static_cast<double>(when) - now_epoch_s);
  }
  return std::nullopt;
}

std::optional<bool> parse_should_retry(const HeaderMap& headers) {
  const auto* value = find_header(headers, "x-should-retry");
  if (!value) return std::nullopt;
  const std::string v = lower(trim(*value));
  if (v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

double backoff_seconds(const RetryPolicy& policy, int attempt, double uniform01) {
  const double exponent = std::max(0, attempt - 1);
  double base = policy.initial_backoff_s * std::pow(std::max(1.0, policy.multiplier), exponent);
  base = std::min(base, policy.max_backoff_s);
  const double u = std::clamp(uniform01, 0.0, 1.0);
  const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  return std::max(0.0, base * (1.0 + jitter * (2.0 * u - 1.0)));
}

double retry_delay_seconds(const RetryPolicy& policy, int attempt, std::optional<double> server_wait,
                           double uniform01) {
  if (server_wait) return std::max(0.0, *server_wait);
  return backoff_seconds(policy, attempt, uniform01);
}

bool is_retryable_status(int s) { return s == 408 || s == 409 || s == 429 || (s >= 500 && s <= 599); }

}  // namespace kf::providers
