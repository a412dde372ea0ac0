#pragma once
// When and how long to wait before retrying a failed request. Pure functions: the clock and the
// random draw are parameters so that tests can pin them.
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "providers/model_config.h"

namespace kf::providers {

// Response headers with lower-case names.
using HeaderMap = std::map<std::string, std::string>;

// The wait the server asked for, in seconds, from `retry-after-ms` (preferred) or `retry-after`
// (delta-seconds or an HTTP date, compared against `now_epoch_s`). nullopt when absent or unparsable;
// a date in the past gives 0.
std::optional<double> parse_retry_after(const HeaderMap& headers, double now_epoch_s);

// `x-should-retry: true|false` when present.
std::optional<bool> parse_should_retry(const HeaderMap& headers);

// Exponential backoff for the retry after failed attempt number `attempt` (1-based):
// initial * multiplier^(attempt-1), capped at max_backoff, then scaled by 1 + jitter*(2u-1) with
// `uniform01` in [0, 1).
double backoff_seconds(const RetryPolicy& policy, int attempt, double uniform01);

// The wait before the next attempt: the server's when it named one (at least 0), otherwise the backoff.
// A server wait longer than policy.max_server_wait_s is not taken at all: the caller fails instead.
double retry_delay_seconds(const RetryPolicy& policy, int attempt, std::optional<double> server_wait, double uniform01);

// Statuses worth retrying: 408, 409, 429, 5xx and Anthropic's 529.
bool is_retryable_status(int http_status);

}  // namespace kf::providers
