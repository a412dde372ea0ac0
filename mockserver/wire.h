#pragma once
// Renders scripted replies and errors in each API's public wire format, whole (non-streaming) or as
// server-sent events. Pure functions: no I/O, so the formats are testable on their own.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mockserver/script.h"

namespace kf::mock {

// A reply with every count decided (script values, or estimates where the script left them out).
struct ResolvedReply {
  std::string id;  // unique per request, e.g. "mock-17"
  std::string model;
  std::string answer;
  std::string reasoning;
  ReasoningForm reasoning_form = ReasoningForm::reasoning_content;
  std::string thinking_signature;
  std::string redacted_thinking;
  std::string finish_reason = "stop";
  size_t chunk_chars = 16;
  int64_t created = 0;  // unix seconds
  // kforge's accounting: input includes cached; output excludes reasoning.
  int64_t input_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t output_tokens = 0;
  int64_t reasoning_tokens = 0;
  bool report_reasoning_tokens = true;  // usage carries the reasoning figure apart (see ScriptEntry)
};

struct ErrorSpec {
  int status = 500;
  std::string type{};     // "" = the API's usual type for the status
  std::string code{};     // OpenAI "code"; "" = type
  std::string message{};  // "" = a generic message
  // Gemini error details (google.rpc): ErrorInfo.reason, QuotaFailure violation quotaId, RetryInfo.retryDelay.
  std::string reason{};
  std::string quota_id{};
  std::string retry_delay{};
};

struct SseEvent {
  std::string event;  // "" = no "event:" line
  std::string data;
};

// Whole response body (Gemini's streamGenerateContent without alt=sse is a JSON array of chunks).
std::string render_body(Api api, const ResolvedReply& reply, bool gemini_json_array = false);
// Streamed events, end marker included ([DONE], message_stop, response.completed, final Gemini chunk).
std::vector<SseEvent> render_events(Api api, const ResolvedReply& reply, bool include_usage);
std::string render_error_body(Api api, const ErrorSpec& error);
SseEvent render_error_event(Api api, const ErrorSpec& error, int64_t sequence_number);
std::string serialize(const SseEvent& event, const SseVariant& variant);

// Per-API renderers (one file each).
nlohmann::json openai_chat_body(const ResolvedReply& r);
std::vector<SseEvent> openai_chat_events(const ResolvedReply& r, bool include_usage);
nlohmann::json openai_responses_body(const ResolvedReply& r);
std::vector<SseEvent> openai_responses_events(const ResolvedReply& r);
nlohmann::json anthropic_body(const ResolvedReply& r);
std::vector<SseEvent> anthropic_events(const ResolvedReply& r);
nlohmann::json gemini_body(const ResolvedReply& r);
std::vector<nlohmann::json> gemini_chunks(const ResolvedReply& r);

// Splits text into pieces of about `chunk` bytes without cutting a UTF-8 sequence.
std::vector<std::string> split_text(const std::string& text, size_t chunk);
// Chat Completions content including reasoning for the think_tags / think_close_only forms.
std::string chat_content_with_reasoning(const ResolvedReply& r);
bool reasoning_in_content(const ResolvedReply& r);

}  // namespace kf::mock
