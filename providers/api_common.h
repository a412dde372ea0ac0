#pragma once
// Helpers shared by the API modules: JSON access that tolerates missing fields, error
// classification from error bodies, finish-reason normalisation. Internal to providers/.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "providers/api_adapter.h"

namespace kf::api {

using nlohmann::json;

// Value at `key` when `j` is an object holding a value of that type; otherwise the fallback.
std::string str(const json& j, std::string_view key, std::string fallback = "");
int64_t int64(const json& j, std::string_view key);
const json& member(const json& j, std::string_view key);  // null json when missing

// Parses `text`; nullopt when it is not JSON.
std::optional<json> parse_json(std::string_view text);

// Text cut to a readable length with secrets redacted, for error details.
std::string excerpt(std::string_view text, size_t max_chars = 300);

// An error object as the APIs send it, in a body or mid-stream: {"error": {...}} or the inner
// object. `http_status` is 0 for a mid-stream error after HTTP 200.
AttemptError error_from_object(const json& error_object, int http_status);

// A non-2xx response.
AttemptError error_from_http(int http_status, const HeaderMap& headers, std::string_view body);

AttemptError malformed(std::string detail);
AttemptError truncated(std::string detail);

// Final checks on a decoded reply: a content-filter stop is an error, and so is a length stop
// that left no answer at all.
AttemptResult finalize(Reply reply);

}  // namespace kf::api
