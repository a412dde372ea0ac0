#include "mockserver/wire.h"

namespace kf::mock {
namespace {

std::string openai_default_type(int status) {
  switch (status) {
    case 400:
    case 422: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 408: return "timeout";
    case 409: return "conflict";
    case 429: return "requests";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

std::string openai_default_code(int status) {
  switch (status) {
    case 401: return "invalid_api_key";
    case 404: return "model_not_found";
    case 429: return "rate_limit_exceeded";
    default: return "";
  }
}

std::string anthropic_default_type(int status) {
  switch (status) {
    case 400:
    case 422: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string gemini_default_status(int status) {
  switch (status) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 429: return "RESOURCE_EXHAUSTED";
    case 500: return "INTERNAL";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

std::string default_message(int status, const std::string& type) {
  return "kforge mock-server: scripted fault: HTTP " + std::to_string(status) + " (" + type + ")";
}

nlohmann::json openai_error_object(const ErrorSpec& e) {
  std::string type = e.type.empty() ? openai_default_type(e.status) : e.type;
  std::string code = !e.code.empty() ? e.code : e.type.empty() ? openai_default_code(e.status) : e.type;
  return {{"message", e.message.empty() ? default_message(e.status, type) : e.message},
          {"type", type},
          {"param", nullptr},
          {"code", code.empty() ? nlohmann::json(nullptr) : nlohmann::json(code)}};
}

nlohmann::json anthropic_error_doc(const ErrorSpec& e) {
  std::string type = e.type.empty() ? anthropic_default_type(e.status) : e.type;
  return {{"type", "error"},
          {"error", {{"type", type}, {"message", e.message.empty() ? default_message(e.status, type) : e.message}}}};
}

// google.rpc.Status as the Gemini API sends it, with the typed details its real errors carry.
nlohmann::json gemini_error_doc(const ErrorSpec& e) {
  std::string status = e.type.empty() ? gemini_default_status(e.status) : e.type;
  nlohmann::json error = {{"code", e.status},
                          {"message", e.message.empty() ? default_message(e.status, status) : e.message},
                          {"status", status}};
  nlohmann::json details = nlohmann::json::array();
  if (!e.reason.empty())
    details.push_back({{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                       {"reason", e.reason},
                       {"domain", "googleapis.com"},
                       {"metadata", {{"service", "generativelanguage.googleapis.com"}}}});
  if (!e.quota_id.empty())
    details.push_back(
        {{"@type", "type.googleapis.com/google.rpc.QuotaFailure"},
         {"violations",
          nlohmann::json::array({{{"quotaMetric", "generativelanguage.googleapis.com/generate_content_requests"},
                                  {"quotaId", e.quota_id}}})}});
  if (!e.retry_delay.empty())
    details.push_back({{"@type", "type.googleapis.com/google.rpc.RetryInfo"}, {"retryDelay", e.retry_delay}});
  if (!details.empty()) error["details"] = std::move(details);
  return {{"error", std::move(error)}};
}

}  // namespace

std::vector<std::string> split_text(const std::string& text, size_t chunk) {
  std::vector<std::string> pieces;
  if (chunk == 0) chunk = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.size(), pos + chunk);
    // Never end a piece inside a multi-byte UTF-8 sequence (continuation bytes are 10xxxxxx).
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    pieces.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return pieces;
}

bool reasoning_in_content(const ResolvedReply& r) {
  return !r.reasoning.empty() &&
         (r.reasoning_form == ReasoningForm::think_tags || r.reasoning_form == ReasoningForm::think_close_only);
}

std::string chat_content_with_reasoning(const ResolvedReply& r) {
  if (!reasoning_in_content(r)) return r.answer;
  std::string open = r.reasoning_form == ReasoningForm::think_tags ? "<think>" : "";
  return open + r.reasoning + "</think>\n\n" + r.answer;
}

std::string render_body(Api api, const ResolvedReply& reply, bool gemini_json_array) {
  switch (api) {
    case Api::openai_chat: return openai_chat_body(reply).dump();
    case Api::openai_responses: return openai_responses_body(reply).dump();
    case Api::anthropic: return anthropic_body(reply).dump();
    case Api::gemini:
      if (gemini_json_array) {
        nlohmann::json arr = nlohmann::json::array();
        for (auto& c : gemini_chunks(reply)) arr.push_back(std::move(c));
        return arr.dump();
      }
      return gemini_body(reply).dump();
  }
  return "{}";
}

std::vector<SseEvent> render_events(Api api, const ResolvedReply& reply, bool include_usage) {
  switch (api) {
    case Api::openai_chat: return openai_chat_events(reply, include_usage);
    case Api::openai_responses: return openai_responses_events(reply);
    case Api::anthropic: return anthropic_events(reply);
    case Api::gemini: {
      std::vector<SseEvent> events;
      for (const auto& c : gemini_chunks(reply)) events.push_back({"", c.dump()});
      return events;
    }
  }
  return {};
}

std::string render_error_body(Api api, const ErrorSpec& error) {
  switch (api) {
    case Api::openai_chat:
    case Api::openai_responses: return nlohmann::json{{"error", openai_error_object(error)}}.dump();
    case Api::anthropic: return anthropic_error_doc(error).dump();
    case Api::gemini: return gemini_error_doc(error).dump();
  }
  return "{}";
}

SseEvent render_error_event(Api api, const ErrorSpec& error, int64_t sequence_number) {
  switch (api) {
    case Api::openai_chat: return {"", nlohmann::json{{"error", openai_error_object(error)}}.dump()};
    case Api::openai_responses: {
      auto obj = openai_error_object(error);
      return {"error", nlohmann::json{{"type", "error"},
                                      {"code", obj["type"]},
                                      {"message", obj["message"]},
                                      {"param", nullptr},
                                      {"sequence_number", sequence_number}}
                           .dump()};
    }
    case Api::anthropic: return {"error", anthropic_error_doc(error).dump()};
    case Api::gemini: return {"", gemini_error_doc(error).dump()};
  }
  return {};
}

std::string serialize(const SseEvent& event, const SseVariant& variant) {
  const std::string& nl = variant.line_ending;
  std::string out;
  if (variant.comments) out += ": keep-alive" + nl;
  if (!event.event.empty()) out += "event: " + event.event + nl;
  // Splitting right after the opening brace keeps the JSON valid once the client joins the data lines
  // with "\n", as the SSE specification requires.
  if (variant.multiline_data && event.data.size() > 1 && event.data[0] == '{') {
    out += "data: {" + nl + "data: " + event.data.substr(1) + nl;
  } else {
    out += "data: " + event.data + nl;
  }
  out += nl;
  return out;
}

}  // namespace kf::mock
