#pragma once
// Helpers shared by the API modules: JSON access that tolerates missing fields, error
// classification from error bodies, finish-reason normalisation. Internal to providers/.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "providers/api_adapter.h"
#include "providers/error_classifier.h"

namespace kf::providers::api {

using nlohmann::json;

// Value at `key` when `j` is an object holding a value of that type; otherwise the fallback.
std::string str(const json& j, std::string_view key, std::string fallback = "");
int64_t int64(const json& j, std::string_view key);
// The count at `key` when it is present as a number in int64 range (a reported figure, even 0).
std::optional<int64_t> reported_count(const json& j, std::string_view key);
const json& member(const json& j, std::string_view key);  // null json when missing

// Parses `text`; nullopt when it is not JSON.
std::optional<json> parse_json(std::string_view text);
// A stream event's data as JSON; `truncated` when the stream was cut inside it, else `malformed`.
std::variant<json, AttemptError> event_json(const SseEvent& event);
// A non-streaming response body that must be a JSON object; `malformed` otherwise.
std::variant<json, AttemptError> body_object(std::string_view body);

// A JSON POST to `url`: Content-Type, Accept (event stream or JSON), then `extra_headers`.
HttpRequest json_post(std::string url, const std::vector<std::pair<std::string, std::string>>& extra_headers,
                      const json& body, bool stream);

// Text cut to a readable length with secrets redacted, for error details.
std::string excerpt(std::string_view text, size_t max_chars = 300);

// A body for a message: "(empty body)", an HTML page by its <title> ("an HTML page: 502 Bad Gateway"), else an
// excerpt. Proxies and wrong base_urls answer with HTML pages whose first bytes are markup, not the reason.
std::string describe_body(std::string_view body, size_t max_chars = 300);

// An error object as the APIs send it, in a body or mid-stream: {"error": {...}} or the inner
// object. `http_status` is 0 for a mid-stream error after HTTP 200. Classed by error_classifier.h.
AttemptError error_from_object(ApiFamily family, const json& error_object, int http_status);

// A non-2xx response.
AttemptError error_from_http(ApiFamily family, int http_status, const HeaderMap& headers, std::string_view body,
                             double now_epoch_s);

// Output tokens split into answer and reasoning. `reported_reasoning` is the API's own reasoning figure
// when it gave one; otherwise a reported total is split by the characters of reasoning and answer text
// (estimated), and with no reasoning text (or no total) everything is answer (none).
void split_output(int64_t total_output, std::optional<int64_t> reported_reasoning, size_t answer_chars,
                  size_t reasoning_chars, Usage& usage);

AttemptError malformed(std::string detail);
AttemptError truncated(std::string detail);

// Final checks on a decoded reply: a content-filter stop is an error, a length stop that left no answer
// at all is output_limit, and an aborted generation (finish reason "abort"/"error") or any other reply
// without answer text is a retryable server error.
AttemptResult finalize(Reply reply);

}  // namespace kf::providers::api
