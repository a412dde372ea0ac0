#include "providers/api_common.h"

#include <cctype>

#include "core/secrets.h"
#include "providers/retry.h"

namespace kf::api {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

const json& member(const json& j, std::string_view key) {
  static const json null_json;
  if (!j.is_object()) return null_json;
  const auto it = j.find(key);
  return it == j.end() ? null_json : *it;
}

std::string str(const json& j, std::string_view key, std::string fallback) {
  const json& v = member(j, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

int64_t int64(const json& j, std::string_view key) {
  const json& v = member(j, key);
  if (v.is_number_integer() || v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
  return 0;
}

std::optional<json> parse_json(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::string excerpt(std::string_view text, size_t max_chars) {
  std::string out = secrets::redact(text);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "…";
  for (auto& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

AttemptError error_from_object(const json& error_object, int http_status) {
  const json& e = error_object.contains("error") ? error_object["error"] : error_object;
  std::string message;
  std::string type, code, status;
  if (e.is_string()) {
    message = e.get<std::string>();
  } else {
    message = str(e, "message");
    type = str(e, "type");
    code = str(e, "code", member(e, "code").is_number() ? member(e, "code").dump() : "");
    status = str(e, "status");
  }
  const std::string all = lower(type + " " + code + " " + status + " " + message);
  const std::string label = [&] {
    std::string s;
    for (const auto& part : {type, code, status}) {
      if (!part.empty() && !contains(s, part)) s += (s.empty() ? "" : "/") + part;
    }
    return s;
  }();
  AttemptError err;
  err.http_status = http_status;
  err.detail = (http_status ? "HTTP " + std::to_string(http_status) : std::string("error event after HTTP 200")) +
               (label.empty() ? "" : " " + excerpt(label, 80)) + ": " + excerpt(message);
  const int numeric_code = static_cast<int>(int64(e, "code"));
  const int s = http_status ? http_status : numeric_code;

  if (mentions_exhausted_quota(all) || s == 402) {
    err.kind = ProviderErrorKind::quota;
  } else if (s == 401 || s == 403 || contains(all, "authentication") || contains(all, "permission") ||
             contains(all, "invalid_api_key") || contains(all, "unauthenticated")) {
    err.kind = ProviderErrorKind::auth;
  } else if (s == 429 || contains(all, "rate_limit") || contains(all, "resource_exhausted") ||
             contains(all, "rate limit")) {
    err.kind = ProviderErrorKind::rate_limit;
    err.retryable = true;
  } else if (s == 408 || s == 409 || (s >= 500 && s <= 599) || contains(all, "overloaded") ||
             contains(all, "server_error") || contains(all, "api_error") || contains(all, "unavailable") ||
             contains(all, "internal") || contains(all, "timeout")) {
    err.kind = ProviderErrorKind::server;
    err.retryable = true;
  } else if ((s >= 400 && s <= 499) || contains(all, "invalid") || contains(all, "not_found")) {
    err.kind = ProviderErrorKind::bad_request;
  } else if (contains(all, "content_filter") || contains(all, "safety") || contains(all, "refus")) {
    err.kind = ProviderErrorKind::content_filter;
  } else {
    // An unexplained mid-stream error: the server gave up on this request, a fresh one may work.
    err.kind = ProviderErrorKind::server;
    err.retryable = true;
  }
  return err;
}

AttemptError error_from_http(int http_status, const HeaderMap& headers, std::string_view body) {
  AttemptError err;
  if (auto j = parse_json(body); j && (j->contains("error") || j->contains("message"))) {
    err = error_from_object(*j, http_status);
  } else {
    err.http_status = http_status;
    err.detail = "HTTP " + std::to_string(http_status) + (body.empty() ? "" : ": " + excerpt(body));
    if (mentions_exhausted_quota(body) || http_status == 402) {
      err.kind = ProviderErrorKind::quota;
    } else if (http_status == 401 || http_status == 403) {
      err.kind = ProviderErrorKind::auth;
    } else if (http_status == 429) {
      err.kind = ProviderErrorKind::rate_limit;
    } else if (is_retryable_status(http_status)) {
      err.kind = ProviderErrorKind::server;
    } else {
      err.kind = ProviderErrorKind::bad_request;
    }
  }
  // The status decides retrying; the body decides only what kind of failure it is, except that
  // an exhausted account is never worth another attempt.
  err.retryable = is_retryable_status(http_status) && err.kind != ProviderErrorKind::quota;
  if (http_status == 429 && err.kind != ProviderErrorKind::quota) err.kind = ProviderErrorKind::rate_limit;
  if (http_status >= 500 && err.kind != ProviderErrorKind::quota && err.kind != ProviderErrorKind::rate_limit)
    err.kind = ProviderErrorKind::server;
  if (const auto forced = parse_should_retry(headers)) err.retryable = *forced;
  return err;
}

AttemptError malformed(std::string detail) {
  AttemptError err;
  err.kind = ProviderErrorKind::malformed;
  err.detail = std::move(detail);
  err.retryable = true;  // a proxy or server glitch as often as not; a new request usually parses
  return err;
}

AttemptError truncated(std::string detail) {
  AttemptError err;
  err.kind = ProviderErrorKind::truncated;
  err.detail = std::move(detail);
  err.retryable = true;  // like a dropped connection: the request is sent again from the start
  return err;
}

AttemptResult finalize(Reply reply) {
  if (reply.finish_reason == "content_filter") {
    AttemptError err;
    err.kind = ProviderErrorKind::content_filter;
    err.detail = "the provider stopped the output with a content-filter or refusal finish reason";
    err.usage = reply.usage;
    return err;
  }
  if (reply.finish_reason == "length" && reply.answer.empty()) {
    AttemptError err;
    err.kind = ProviderErrorKind::output_limit;
    err.detail = "the output-token limit was reached before any answer text (" +
                 std::to_string(reply.reasoning.size()) + " characters of reasoning)";
    err.usage = reply.usage;
    return err;
  }
  return reply;
}

}  // namespace kf::api
