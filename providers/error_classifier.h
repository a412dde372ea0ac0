#pragma once
// How kforge classes a failed model-API response: a pure function of the API family, the HTTP status
// (0 for an error object that arrived after HTTP 200), the response headers and the body. The rules per
// API, and how they compare with the official SDKs, are the table in docs/providers.md.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "providers/provider.h"
#include "providers/retry.h"

namespace kf::providers {

// Error bodies differ by family, not by endpoint: Chat Completions, Responses and the compatible
// servers all send OpenAI's error object.
enum class ApiFamily { openai, anthropic, gemini };
ApiFamily api_family(ProviderKind kind);

struct ErrorClass {
  ProviderErrorKind kind = ProviderErrorKind::server;
  bool retryable = false;
  ErrorCause cause = ErrorCause::none;
  // The wait the server asked for before a retry, in seconds: the retry-after-ms / retry-after
  // headers first, else a hint in the body (Gemini RetryInfo.retryDelay, OpenAI "Please try again in
  // 7m12s"). nullopt when the response names none.
  std::optional<double> server_wait_s;
  std::string detail;  // what the server said, key-free and cut to a readable length
};

// A non-2xx response. `now_epoch_s` resolves a Retry-After given as an HTTP date.
ErrorClass classify_http_error(ApiFamily family, int http_status, const HeaderMap& headers, std::string_view body,
                               double now_epoch_s);

// An error object from a body or a stream: {"error": {...}}, Anthropic's {"type":"error","error":{...}},
// a Responses `error` event ({"type":"error","code","message"}) or a bare inner object. `http_status` is 0
// when it came after HTTP 200.
ErrorClass classify_error_object(ApiFamily family, const nlohmann::json& error_object, int http_status);

// "26s", "0.5s", "1.000340s" (a protobuf Duration in JSON) -> seconds.
std::optional<double> parse_duration_seconds(std::string_view text);
// The wait in an OpenAI rate-limit message: "... Please try again in 7m12s." / "in 1ms" / "in 20.5s".
std::optional<double> parse_try_again_in(std::string_view message);

}  // namespace kf::providers
