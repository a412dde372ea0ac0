#pragma once
// The scripted model server's script: a JSON list of entries, each a reply (answer, reasoning, usage)
// or a fault (an HTTP error, a delay, a cut stream, malformed JSON, an error event mid-stream).
// Format, matching rules, keys and seeded choices: docs/mock-server.md.
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::mock {

// The wire protocols the server speaks.
enum class Api { openai_chat, openai_responses, anthropic, gemini };
std::string to_string(Api api);
std::optional<Api> api_from_string(const std::string& text);

// How reasoning text travels on the Chat Completions wire (OpenAI-compatible servers differ).
enum class ReasoningForm {
  reasoning_content,  // delta.reasoning_content / message.reasoning_content (DeepSeek, SGLang, vLLM)
  reasoning,          // delta.reasoning / message.reasoning (OpenRouter, Ollama, newer vLLM)
  think_tags,         // "<think>…</think>answer" inside content
  think_close_only,   // "…</think>answer" inside content (opening tag sent in the prompt template)
};
std::string to_string(ReasoningForm form);

// Token counts as kforge accounts them: input includes cached; output excludes reasoning.
// Unset counts are estimated from text lengths (about 4 characters per token).
struct ScriptUsage {
  std::optional<int64_t> input;
  std::optional<int64_t> output;
  std::optional<int64_t> reasoning;
  std::optional<int64_t> cached;
};

struct StreamCut {
  enum class Unit { bytes, events };
  Unit unit = Unit::events;
  int64_t count = 0;
  bool abort_connection = false;  // drop the TCP connection instead of ending the HTTP body cleanly
};

struct ErrorEvent {
  int64_t after_events = 1;  // events sent before the error event
  std::string type;          // API error type; "" = the API's usual server-error type
  std::string message;
};

// Variations of the SSE framing, to exercise a client's parser.
struct SseVariant {
  std::string line_ending = "\n";  // "\n", "\r\n" or "\r"
  bool comments = false;           // ": keep-alive" comment lines between events
  bool multiline_data = false;     // each JSON payload split over two data: lines
};

// Which text of a request its key is looked for in (docs/mock-server.md, "Keys").
enum class KeyPlace { last_user, last_assistant, system, all };
std::string to_string(KeyPlace place);

// How a request's key is found: the first place (in order) where the regex matches on some line gives it;
// the key is the regex's first capture group (the whole match without one), of the first or last matching
// line there. A search bench keys answers on a marker of the parent kernel that the prompt shows.
struct KeyRule {
  std::string regex_source;
  std::shared_ptr<const std::regex> regex;
  std::vector<KeyPlace> places = {KeyPlace::last_user};
  bool last_occurrence = false;  // false: the first matching line of a place
};

struct ScriptChoice;

struct ScriptEntry {
  size_t index = 0;          // position in the script (0-based), for logs and messages
  std::string match_source;  // "" = no regex: consumed in order
  std::shared_ptr<const std::regex> match;
  std::vector<std::string> keys;  // answers only requests whose key is one of these; empty = any request
  std::vector<Api> apis;          // empty = any API
  int64_t times = 1;              // uses before the entry is spent; -1 = unlimited
  // Alternative replies (or faults), one drawn per use from the server's seed; empty = the entry is the reply.
  std::vector<ScriptChoice> choices;

  // Reply.
  std::string answer;
  std::string reasoning;
  ReasoningForm reasoning_form = ReasoningForm::reasoning_content;
  std::string thinking_signature;  // Anthropic: signature_delta of the thinking block
  std::string redacted_thinking;   // Anthropic: data of a redacted_thinking block ("" = none)
  ScriptUsage usage;
  std::string finish_reason = "stop";  // "stop" | "length" | "content_filter"
  std::string model;                   // model name reported back; "" = the requested one
  size_t chunk_chars = 16;             // streamed text is split into deltas of about this many bytes
  // Whether usage carries the reasoning figure on its own (Chat completion_tokens_details, Responses
  // output_tokens_details, Gemini thoughtsTokenCount, Anthropic output_tokens_details.thinking_tokens).
  // Unset: yes, except Anthropic (whose older responses do not split thinking out).
  std::optional<bool> report_reasoning_tokens;

  // Fault.
  int status = 200;
  std::optional<std::string> retry_after;  // Retry-After header value (seconds or HTTP date)
  std::optional<int64_t> retry_after_ms;   // retry-after-ms header
  std::optional<bool> x_should_retry;      // x-should-retry header
  std::string error_type;                  // e.g. insufficient_quota, overloaded_error; "" = from status
  std::string error_code;                  // OpenAI "code"; "" = same as type
  std::string error_message;               // "" = a generic message for the status
  std::string error_reason;                // Gemini: an ErrorInfo detail with this reason (e.g. API_KEY_INVALID)
  std::string quota_id;                    // Gemini: a QuotaFailure detail with this quotaId
  std::string retry_delay;                 // Gemini: a RetryInfo detail with this retryDelay (e.g. "26s")
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers, sent as given
  // A recorded body sent verbatim instead of a rendered one (with `status`; text/event-stream when the
  // file name ends in .sse, else application/json). Read when the script is loaded.
  std::string body_file;
  std::optional<std::string> body;
  double delay_s = 0;        // wait before the response starts
  double event_delay_s = 0;  // wait between streamed events
  std::optional<StreamCut> stream_cut;
  bool malformed_json = false;
  std::optional<ErrorEvent> error_event;
  SseVariant sse;

  bool is_fault() const { return status != 200; }
};

// One alternative of an entry's `choices`: its reply fields, drawn with probability weight / sum of weights.
struct ScriptChoice {
  double weight = 1;
  ScriptEntry reply;
};

struct Script {
  std::optional<KeyRule> key;  // unset: requests have no key and keyed entries never answer
  std::vector<ScriptEntry> entries;
};

// Parses and validates a script document (a list of entries, or an object {"key": …, "entries": […]}); on failure the
// message lists every problem
// ("entry 3: field: reason"). A relative body_file is found under `base_dir` ("" = the working directory).
Result<Script> parse_script(const nlohmann::json& doc, const std::string& base_dir = "");
Result<Script> load_script(const std::string& path);
// The embedded demo script: one reply carrying a small CUDA kernel in a code block.
Script default_script();
const char* default_script_json();

}  // namespace kf::mock
