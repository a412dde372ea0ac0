#pragma once
// What each API module provides to the shared provider loop: how to build a request, how to read a
// non-streaming body and how to decode a stream of SSE events. Internal to providers/.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "providers/http_transport.h"
#include "providers/model_config.h"
#include "providers/provider.h"
#include "providers/sse_parser.h"

namespace kf::providers {

// One failed HTTP attempt. `detail` is what happened (already key-free); the provider loop turns
// it into a ProviderError whose message also says what to do.
struct AttemptError {
  ProviderErrorKind kind = ProviderErrorKind::server;
  std::string detail;
  bool retryable = false;
  ErrorCause cause = ErrorCause::none;
  std::optional<double> server_wait_s;  // the wait the response asked for before a retry
  int http_status = 0;
  Usage usage;
};

using AttemptResult = std::variant<Reply, AttemptError>;

// How the byte stream ended: the server closed it properly, or the connection broke.
enum class StreamEnd { clean, cut };

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // nullopt to keep reading; an error ends the attempt.
  virtual std::optional<AttemptError> on_event(const SseEvent& event) = 0;
  // The byte stream ended: the reply, or `truncated` when the API's end marker never came (a decoder may
  // accept a weaker marker when the server closed the stream itself).
  virtual AttemptResult finish(StreamEnd end) = 0;
};

class ApiAdapter {
 public:
  virtual ~ApiAdapter() = default;
  // URL, headers (authentication excluded) and JSON body.
  virtual HttpRequest build_request(const std::vector<ChatMessage>& messages, bool stream) const = 0;
  virtual void add_auth(HttpRequest& request, const std::string& api_key) const = 0;
  virtual AttemptResult parse_body(std::string_view body) const = 0;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;
  // What ends a complete stream, for messages ("data: [DONE]", "message_stop" ...).
  virtual std::string end_marker() const = 0;
};

std::unique_ptr<ApiAdapter> make_openai_chat_adapter(const ModelConfig& config, bool compatible);
std::unique_ptr<ApiAdapter> make_openai_responses_adapter(const ModelConfig& config);
std::unique_ptr<ApiAdapter> make_anthropic_adapter(const ModelConfig& config);
std::unique_ptr<ApiAdapter> make_gemini_adapter(const ModelConfig& config);

}  // namespace kf::providers
