#include "providers/error_classifier.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "providers/api_common.h"

namespace kf::providers {
namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string text_of(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer() || it->is_number_unsigned()) return it->dump();
  return "";
}

// The fields every family's error object is read into.
struct Fields {
  std::string message;
  std::string type;    // OpenAI type, Anthropic error.type
  std::string code;    // OpenAI code (string or number)
  std::string status;  // Gemini status, e.g. RESOURCE_EXHAUSTED
  int numeric_code = 0;
  std::vector<std::string> reasons;    // Gemini ErrorInfo.reason
  std::vector<std::string> quota_ids;  // Gemini QuotaFailure violations[].quotaId
  std::vector<std::string> quota_values;
  std::optional<double> retry_delay_s;  // Gemini RetryInfo.retryDelay
};

Fields read_fields(const json& object) {
  Fields f;
  const json* e = &object;
  if (object.is_object() && object.contains("error") && !object["error"].is_null()) e = &object["error"];
  if (e->is_string()) {
    f.message = e->get<std::string>();
    return f;
  }
  if (!e->is_object()) return f;
  f.message = text_of(*e, "message");
  f.type = text_of(*e, "type");
  f.code = text_of(*e, "code");
  f.status = text_of(*e, "status");
  if (const auto it = e->find("code"); it != e->end() && it->is_number_integer()) f.numeric_code = it->get<int>();
  if (const auto it = e->find("details"); it != e->end() && it->is_array()) {
    for (const auto& d : *it) {
      if (!d.is_object()) continue;
      if (auto r = text_of(d, "reason"); !r.empty()) f.reasons.push_back(r);
      if (const auto v = d.find("violations"); v != d.end() && v->is_array()) {
        for (const auto& violation : *v) {
          if (auto id = text_of(violation, "quotaId"); !id.empty()) f.quota_ids.push_back(id);
          if (auto value = text_of(violation, "quotaValue"); !value.empty()) f.quota_values.push_back(value);
        }
      }
      if (auto delay = text_of(d, "retryDelay"); !delay.empty()) f.retry_delay_s = parse_duration_seconds(delay);
    }
  }
  return f;
}

std::string describe(const Fields& f, int http_status) {
  std::string label;
  for (const auto& part : {f.type, f.code, f.status}) {
    if (part == std::to_string(http_status)) continue;  // Gemini repeats the status as its code
    if (!part.empty() && !contains(label, part)) label += (label.empty() ? "" : "/") + part;
  }
  for (const auto& r : f.reasons) label += (label.empty() ? "" : "/") + r;
  std::string out = http_status ? "HTTP " + std::to_string(http_status) : std::string("error event after HTTP 200");
  if (!label.empty()) out += " " + api::excerpt(label, 100);
  if (!f.quota_ids.empty()) out += " (quota " + api::excerpt(f.quota_ids.front(), 100) + ")";
  return out + ": " + api::excerpt(f.message, 300);
}

// Account-level exhaustion phrased in text only (compatible servers, proxies, Anthropic's 400).
bool says_out_of_credit(const std::string& t) {
  for (const char* needle : {"insufficient_quota", "credit balance", "insufficient credits", "insufficient balance",
                             "spend limit", "spending limit", "spend_limit", "payment required", "budget exceeded",
                             "budget_exceeded", "billing_hard_limit", "billing_not_active"}) {
    if (contains(t, needle)) return true;
  }
  return false;
}

bool says_context_length(const std::string& t) {
  // Anthropic: "input length and `max_tokens` exceed context limit"; llama.cpp: "exceeds the available context
  // size" (type exceed_context_size_error, sent with HTTP 400 or 500) and "Context size has been exceeded".
  return contains(t, "context_length_exceeded") || contains(t, "prompt is too long") ||
         contains(t, "maximum context length") || contains(t, "input tokens exceed") ||
         contains(t, "exceeds the maximum number of tokens") || contains(t, "context window") ||
         contains(t, "exceed context limit") || contains(t, "exceed_context_size") ||
         contains(t, "available context size") || contains(t, "context size has been exceeded") ||
         contains(t, "exceeds context size") || contains(t, "context_exceeded");
}

// A google.rpc.Status error ({"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [...]}), as Gemini's
// OpenAI-compatible endpoint sends it too.
bool is_google_status(const Fields& f) {
  if (f.status.empty() || f.numeric_code == 0) return false;
  for (char ch : f.status)
    if (!(std::isupper(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

void set(ErrorClass& c, ProviderErrorKind kind, bool retryable, ErrorCause cause = ErrorCause::none) {
  c.kind = kind;
  c.retryable = retryable;
  c.cause = cause;
}

// The status/type rules shared by every family once the family-specific ones have not decided.
void generic(ErrorClass& c, int s, const std::string& all) {
  if (s == 402 || says_out_of_credit(all)) return set(c, ProviderErrorKind::quota, false, ErrorCause::out_of_credit);
  if (s == 401 || contains(all, "invalid_api_key") || contains(all, "authentication") ||
      contains(all, "unauthenticated"))
    return set(c, ProviderErrorKind::auth, false, ErrorCause::key_invalid);
  if (s == 403 || contains(all, "permission")) return set(c, ProviderErrorKind::auth, false);
  if (s == 429 || contains(all, "rate_limit") || contains(all, "rate limit") || contains(all, "resource_exhausted"))
    return set(c, ProviderErrorKind::rate_limit, true);
  if (s == 413) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::request_too_large);
  // Before the 5xx rule: llama.cpp reports an over-long prompt as HTTP 500, and no retry can fix it.
  if (says_context_length(all)) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::context_length);
  if (s >= 300 && s <= 399) return set(c, ProviderErrorKind::bad_request, false);
  // Before the server words: Ollama's 404 for an unknown model has type "api_error".
  if (s == 404) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::model_not_found);
  if (s == 408 || s == 409 || (s >= 500 && s <= 599) || contains(all, "overloaded") || contains(all, "server_error") ||
      contains(all, "api_error") || contains(all, "unavailable") || contains(all, "internal") ||
      contains(all, "timeout"))
    return set(c, ProviderErrorKind::server, true);
  if (contains(all, "not_found")) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::model_not_found);
  if ((s >= 400 && s <= 499) || contains(all, "invalid")) return set(c, ProviderErrorKind::bad_request, false);
  if (contains(all, "content_filter") || contains(all, "safety") || contains(all, "refus"))
    return set(c, ProviderErrorKind::content_filter, false);
  // An unexplained error after HTTP 200: the server gave up on this request, a fresh one may work.
  set(c, ProviderErrorKind::server, true);
}

void classify_openai(ErrorClass& c, const Fields& f, int s, const std::string& all) {
  const std::string code = lower(f.code), type = lower(f.type);
  // openai-python retries every 429 alike; kforge keeps it for rate limits only: an exhausted account
  // does not recover by waiting (docs/providers.md).
  if (code == "insufficient_quota" || type == "insufficient_quota" || code == "billing_hard_limit_reached" ||
      code == "billing_not_active")
    return set(c, ProviderErrorKind::quota, false, ErrorCause::out_of_credit);
  // "rate_limit_exceeded" is a rate limit whatever the message adds ("...by adding a payment method ...
  // /account/billing" on per-day limits).
  if (code == "rate_limit_exceeded" || type == "requests" || type == "tokens")
    return set(c, ProviderErrorKind::rate_limit, true);
  if (code == "invalid_api_key" || s == 401) return set(c, ProviderErrorKind::auth, false, ErrorCause::key_invalid);
  if (code == "context_length_exceeded" || code == "string_above_max_length")
    return set(c, ProviderErrorKind::bad_request, false, ErrorCause::context_length);
  if (code == "model_not_found") return set(c, ProviderErrorKind::bad_request, false, ErrorCause::model_not_found);
  // Azure's prompt filter: HTTP 400 with code content_filter ("...triggering Azure OpenAI's content management
  // policy").
  if (code == "content_filter") return set(c, ProviderErrorKind::content_filter, false);
  // Without a code, OpenAI's insufficient-quota wording.
  if (s == 429 && contains(all, "exceeded your current quota"))
    return set(c, ProviderErrorKind::quota, false, ErrorCause::out_of_credit);
  // Numeric codes in an error chunk (OpenRouter's mid-stream errors carry the HTTP status there).
  generic(c, s ? s : f.numeric_code, all);
}

void classify_anthropic(ErrorClass& c, const Fields& f, int s, const std::string& all) {
  const std::string type = lower(f.type);
  if (type == "billing_error" || contains(all, "credit balance"))
    return set(c, ProviderErrorKind::quota, false, ErrorCause::out_of_credit);
  if (type == "authentication_error") return set(c, ProviderErrorKind::auth, false, ErrorCause::key_invalid);
  if (type == "permission_error") return set(c, ProviderErrorKind::auth, false);
  if (type == "rate_limit_error") return set(c, ProviderErrorKind::rate_limit, true);
  if (type == "overloaded_error" || type == "api_error" || type == "timeout_error")
    return set(c, ProviderErrorKind::server, true);
  if (type == "request_too_large") return set(c, ProviderErrorKind::bad_request, false, ErrorCause::request_too_large);
  if (type == "not_found_error") return set(c, ProviderErrorKind::bad_request, false, ErrorCause::model_not_found);
  if (says_context_length(all)) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::context_length);
  generic(c, s, all);
}

void classify_gemini(ErrorClass& c, const Fields& f, int s, const std::string& all) {
  const int code = s ? s : f.numeric_code;
  for (const auto& r : f.reasons) {
    // API_KEY_INVALID comes as HTTP 400 INVALID_ARGUMENT; its siblings name a key that may not be used.
    if (r == "API_KEY_INVALID" || r == "API_KEY_EXPIRED")
      return set(c, ProviderErrorKind::auth, false, ErrorCause::key_invalid);
    if (r.rfind("API_KEY_", 0) == 0) return set(c, ProviderErrorKind::auth, false);
  }
  if (says_out_of_credit(all)) return set(c, ProviderErrorKind::quota, false, ErrorCause::out_of_credit);
  if (f.status == "UNAUTHENTICATED") return set(c, ProviderErrorKind::auth, false, ErrorCause::key_invalid);
  if (f.status == "PERMISSION_DENIED") return set(c, ProviderErrorKind::auth, false);
  if (f.status == "RESOURCE_EXHAUSTED" || code == 429) {
    // "You exceeded your current quota ... billing details" is the wording of every Gemini 429; the
    // QuotaFailure violation says which quota: per-minute ones refill, a per-day one not before the
    // daily reset, a quota of 0 never.
    for (const auto& v : f.quota_values)
      if (v == "0") return set(c, ProviderErrorKind::quota, false, ErrorCause::zero_quota);
    for (const auto& id : f.quota_ids)
      if (contains(lower(id), "perday")) return set(c, ProviderErrorKind::quota, false, ErrorCause::daily_quota);
    return set(c, ProviderErrorKind::rate_limit, true);
  }
  if (f.status == "FAILED_PRECONDITION" && contains(all, "billing"))
    return set(c, ProviderErrorKind::quota, false, ErrorCause::billing_required);
  if (f.status == "INTERNAL" || f.status == "UNAVAILABLE" || f.status == "DEADLINE_EXCEEDED")
    return set(c, ProviderErrorKind::server, true);
  if (f.status == "NOT_FOUND") return set(c, ProviderErrorKind::bad_request, false, ErrorCause::model_not_found);
  if (says_context_length(all)) return set(c, ProviderErrorKind::bad_request, false, ErrorCause::context_length);
  if (f.status == "INVALID_ARGUMENT" || f.status == "FAILED_PRECONDITION")
    return set(c, ProviderErrorKind::bad_request, false);
  generic(c, code, all);
}

ErrorClass classify_fields(ApiFamily family, const Fields& f, int http_status) {
  ErrorClass c;
  c.detail = describe(f, http_status);
  std::string all = lower(f.type + " " + f.code + " " + f.status + " " + f.message);
  for (const auto& r : f.reasons) all += " " + lower(r);
  if (family == ApiFamily::openai && is_google_status(f)) family = ApiFamily::gemini;
  switch (family) {
    case ApiFamily::openai: classify_openai(c, f, http_status, all); break;
    case ApiFamily::anthropic: classify_anthropic(c, f, http_status, all); break;
    case ApiFamily::gemini: classify_gemini(c, f, http_status, all); break;
  }
  if (f.retry_delay_s)
    c.server_wait_s = f.retry_delay_s;
  else if (c.kind == ProviderErrorKind::rate_limit)
    c.server_wait_s = parse_try_again_in(f.message);
  return c;
}

}  // namespace

ApiFamily api_family(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::anthropic: return ApiFamily::anthropic;
    case ProviderKind::gemini: return ApiFamily::gemini;
    default: return ApiFamily::openai;
  }
}

std::optional<double> parse_duration_seconds(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.size() < 2 || s.back() != 's') return std::nullopt;
  s.pop_back();
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

std::optional<double> parse_try_again_in(std::string_view message) {
  const std::string m = lower(message);
  const auto at = m.find("try again in ");
  if (at == std::string::npos) return std::nullopt;
  size_t i = at + 13;
  double total = 0;
  bool any = false;
  while (i < m.size() && (std::isdigit(static_cast<unsigned char>(m[i])) || m[i] == '.')) {
    size_t j = i;
    while (j < m.size() && (std::isdigit(static_cast<unsigned char>(m[j])) || m[j] == '.')) ++j;
    const double v = std::strtod(m.substr(i, j - i).c_str(), nullptr);
    double unit = 0;
    if (m.compare(j, 2, "ms") == 0) {
      unit = 0.001;
      j += 2;
    } else if (j < m.size() && m[j] == 'h') {
      unit = 3600;
      j += 1;
    } else if (j < m.size() && m[j] == 'm') {
      unit = 60;
      j += 1;
    } else if (j < m.size() && m[j] == 's') {
      unit = 1;
      j += 1;
    } else
      break;
    total += v * unit;
    any = true;
    i = j;
  }
  if (!any || !std::isfinite(total)) return std::nullopt;
  return total;
}

ErrorClass classify_error_object(ApiFamily family, const nlohmann::json& error_object, int http_status) {
  return classify_fields(family, read_fields(error_object), http_status);
}

ErrorClass classify_http_error(ApiFamily family, int http_status, const HeaderMap& headers, std::string_view body,
                               double now_epoch_s) {
  ErrorClass c;
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  // Google's endpoints (Gemini's OpenAI-compatible one among them) wrap the error object in an array.
  if (!j.is_discarded() && j.is_array() && j.size() == 1 && j[0].is_object() && j[0].contains("error")) j = j[0];
  if (!j.is_discarded() && j.is_object() && (j.contains("error") || j.contains("message"))) {
    c = classify_error_object(family, j, http_status);
  } else {
    // Not an error object (a proxy's HTML page, plain text): the status and the words decide.
    Fields f;
    f.message = std::string(body);
    c = classify_fields(family, f, http_status);
    c.detail = "HTTP " + std::to_string(http_status) + ": " + api::describe_body(body);
  }
  if (http_status >= 300 && http_status <= 399) {
    const auto location = headers.find("location");
    c.detail += " (a redirect" +
                (location == headers.end() ? std::string() : " to " + api::excerpt(location->second, 200)) +
                ": set base_url to the address the API is served at)";
  }
  // The SDKs' rule: the status decides whether to retry (408, 409, 429, 5xx); the body only says what
  // kind of failure it is, except that a final one (an exhausted account or daily quota, a bad key)
  // is never worth another attempt.
  const bool final_kind =
      c.kind == ProviderErrorKind::quota || c.kind == ProviderErrorKind::auth || c.cause == ErrorCause::context_length;
  c.retryable = is_retryable_status(http_status) && !final_kind;
  if (c.retryable && http_status == 429) c.kind = ProviderErrorKind::rate_limit;
  if (c.retryable && http_status >= 500 && c.kind != ProviderErrorKind::rate_limit) c.kind = ProviderErrorKind::server;
  // A 4xx whose words sound like a server failure ("api_error", "internal") is still a request the server refused.
  if (!c.retryable && http_status >= 400 && http_status <= 499 && c.kind == ProviderErrorKind::server)
    c.kind = ProviderErrorKind::bad_request;
  if (const auto forced = parse_should_retry(headers)) c.retryable = *forced;
  if (const auto header_wait = parse_retry_after(headers, now_epoch_s)) c.server_wait_s = header_wait;
  return c;
}

}  // namespace kf::providers
