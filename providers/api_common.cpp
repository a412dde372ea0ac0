#include "providers/api_common.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "core/secrets.h"

namespace kf::providers::api {

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

std::optional<int64_t> reported_count(const json& j, std::string_view key) {
  const json& v = member(j, key);
  if (v.is_number_integer() || v.is_number_unsigned()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return v.get<int64_t>();
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::fabs(d) < 9e18) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

int64_t int64(const json& j, std::string_view key) { return reported_count(j, key).value_or(0); }

std::optional<json> parse_json(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::variant<json, AttemptError> event_json(const SseEvent& event) {
  auto j = parse_json(event.data);
  if (j) return std::move(*j);
  if (!event.terminated) return truncated("the stream was cut inside an event");
  return malformed("a stream event is not JSON: " + excerpt(event.data, 120));
}

std::variant<json, AttemptError> body_object(std::string_view body) {
  auto j = parse_json(body);
  if (j && j->is_object()) return std::move(*j);
  return malformed("the response body is not a JSON object: " + describe_body(body, 120));
}

HttpRequest json_post(std::string url, const std::vector<std::pair<std::string, std::string>>& extra_headers,
                      const json& body, bool stream) {
  HttpRequest req;
  req.url = std::move(url);
  req.headers = {{"Content-Type", "application/json"}};
  for (const auto& h : extra_headers) req.headers.push_back(h);
  req.headers.emplace_back("Accept", stream ? "text/event-stream" : "application/json");
  req.body = body.dump();
  return req;
}

std::string excerpt(std::string_view text, size_t max_chars) {
  std::string out = secrets::redact(text);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "…";
  for (auto& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string describe_body(std::string_view body, size_t max_chars) {
  const auto first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "(empty body)";
  if (body[first] != '<') return excerpt(body, max_chars);
  std::string lowered(body.substr(0, std::min<size_t>(body.size(), 64 * 1024)));
  for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto open = lowered.find("<title");
  const auto open_end = open == std::string::npos ? open : lowered.find('>', open);
  const auto close = open_end == std::string::npos ? open_end : lowered.find("</title>", open_end);
  if (close == std::string::npos) return "an HTML page: " + excerpt(body, max_chars);
  std::string title;  // whitespace runs collapsed
  for (char c : body.substr(open_end + 1, close - open_end - 1)) {
    const bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (title.empty() || title.back() == ' ')) continue;
    title.push_back(space ? ' ' : c);
  }
  while (!title.empty() && title.back() == ' ') title.pop_back();
  return "an HTML page: " + excerpt(title.empty() ? body : std::string_view(title), max_chars);
}

namespace {
AttemptError from_class(const ErrorClass& c, int http_status) {
  AttemptError err;
  err.kind = c.kind;
  err.retryable = c.retryable;
  err.cause = c.cause;
  err.server_wait_s = c.server_wait_s;
  err.detail = c.detail;
  err.http_status = http_status;
  return err;
}
}  // namespace

AttemptError error_from_object(ApiFamily family, const json& error_object, int http_status) {
  return from_class(classify_error_object(family, error_object, http_status), http_status);
}

AttemptError error_from_http(ApiFamily family, int http_status, const HeaderMap& headers, std::string_view body,
                             double now_epoch_s) {
  return from_class(classify_http_error(family, http_status, headers, body, now_epoch_s), http_status);
}

void split_output(int64_t total_output, std::optional<int64_t> reported_reasoning, size_t answer_chars,
                  size_t reasoning_chars, Usage& usage) {
  total_output = std::max<int64_t>(0, total_output);
  if (reported_reasoning) {
    usage.reasoning_tokens = std::clamp<int64_t>(*reported_reasoning, 0, total_output);
    usage.reasoning_source = Usage::ReasoningSource::reported;
  } else if (reasoning_chars > 0 && total_output > 0) {
    const double share = static_cast<double>(reasoning_chars) / static_cast<double>(reasoning_chars + answer_chars);
    usage.reasoning_tokens = static_cast<int64_t>(std::llround(static_cast<double>(total_output) * share));
    usage.reasoning_source = Usage::ReasoningSource::estimated;
  } else {
    usage.reasoning_tokens = 0;
    usage.reasoning_source = Usage::ReasoningSource::none;
  }
  usage.output_tokens = total_output - usage.reasoning_tokens;
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
  if (reply.finish_reason == "abort" || reply.finish_reason == "error") {
    // vLLM ends an engine-aborted request (shutdown, scale-down, preemption) with finish_reason "abort" and
    // then [DONE]: the answer is cut short, not finished.
    AttemptError err;
    err.kind = ProviderErrorKind::server;
    err.retryable = true;
    err.detail = "the server ended the generation with finish_reason " + reply.finish_reason + " after " +
                 std::to_string(reply.answer.size()) + " characters of answer";
    err.usage = reply.usage;
    return err;
  }
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
  if (reply.answer.find_first_not_of(" \t\r\n") == std::string::npos) {
    // Gemini 2.5 now and then ends with STOP and no parts at all; an empty answer would cost a campaign
    // turn (and an empty assistant message, which Anthropic rejects), while a new request usually answers.
    AttemptError err;
    err.kind = ProviderErrorKind::server;
    err.retryable = true;
    err.detail = "the reply carried no answer text (finish reason " +
                 (reply.finish_reason.empty() ? std::string("none") : reply.finish_reason) + ", " +
                 std::to_string(reply.reasoning.size()) + " characters of reasoning)";
    err.usage = reply.usage;
    return err;
  }
  return reply;
}

}  // namespace kf::providers::api
