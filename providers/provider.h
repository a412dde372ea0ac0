#pragma once
// The provider interface: one chat-style completion against a model endpoint, with retries, rate
// limits, usage accounting and error classification done inside.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "providers/model_config.h"

namespace kf::providers {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct Usage {
  int64_t input_tokens = 0;  // all prompt tokens, cached ones included
  int64_t cached_input_tokens = 0;
  int64_t output_tokens = 0;  // visible answer tokens (reasoning excluded)
  int64_t reasoning_tokens = 0;
  // Where reasoning_tokens comes from: the API reported it, kforge split a reported output total by the
  // characters of answer and reasoning text, or neither was possible (reasoning_tokens is then 0).
  enum class ReasoningSource { reported, estimated, none };
  ReasoningSource reasoning_source = ReasoningSource::none;
};
std::string to_string(Usage::ReasoningSource source);

// USD for `usage` at `prices` (per million tokens).
double cost_usd(const Usage& usage, const Prices& prices);

struct Reply {
  std::string answer;     // the model's answer text, reasoning removed
  std::string reasoning;  // reasoning/thinking text, when the API exposed it
  Usage usage;
  double cost_usd = 0;
  std::string finish_reason;  // normalised: "stop" | "length" | "content_filter" | provider's own otherwise
  std::string model;          // model name the server reported
  int attempts = 1;           // HTTP attempts made (retries + 1)
  double latency_s = 0;       // wall time of the successful attempt
};

// Why a call failed. Everything here is about the provider, never about the model's content
// (a kernel that does not compile is not a ProviderError).
enum class ProviderErrorKind {
  auth,            // 401/403: wrong or missing key
  quota,           // insufficient_quota, spend limit, billing
  rate_limit,      // 429 after retries were exhausted
  server,          // 5xx / 529 after retries were exhausted
  network,         // connection refused, DNS, TLS, timeouts
  bad_request,     // 400/404/422: the request itself is wrong (model name, parameters)
  malformed,       // unparseable body or stream
  truncated,       // stream ended without its end marker
  content_filter,  // the provider refused or filtered the output
  output_limit,    // stopped at max output tokens with no usable answer
  not_sent,        // the caller's gate refused the call once it had a concurrency slot (a stop, a budget cap)
};
std::string to_string(ProviderErrorKind kind);

// A finer reason inside a kind, where the advice differs (docs/providers.md, "Errors").
enum class ErrorCause {
  none,
  out_of_credit,      // quota: insufficient_quota, billing_error, credit balance, spend limit, HTTP 402
  daily_quota,        // quota: a per-day quota (Gemini QuotaFailure id "...PerDay...") is used up
  zero_quota,         // quota: the quota is 0 (the model is not available on this tier at all)
  billing_required,   // quota: Gemini FAILED_PRECONDITION (free tier unavailable, billing must be enabled)
  key_invalid,        // auth: the key itself is wrong (401, invalid_api_key, Gemini API_KEY_INVALID)
  context_length,     // bad_request: the prompt is longer than the model's context
  request_too_large,  // bad_request: the request exceeds the API's size limit (413)
  model_not_found,    // bad_request: 404 / model_not_found
  wait_too_long,      // rate_limit/server: the server asked for a longer wait than retry.max_server_wait_s
};
std::string to_string(ErrorCause cause);

struct ProviderError {
  ProviderErrorKind kind;
  std::string message;  // what happened and what to do; never contains a key
  int http_status = 0;
  int attempts = 1;
  Usage usage;           // tokens already billed, if the provider reported any
  std::string advice{};  // the "what to do" part of message on its own
  ErrorCause cause = ErrorCause::none;
};

template <class T>
using ProviderResult = std::variant<T, ProviderError>;

// Asked once a call holds its concurrency slot, just before its first request is sent: a stop (Ctrl-C,
// SIGTERM) or a budget cap then holds back every call that was only waiting for a slot. `may_send` false:
// nothing is sent and complete() returns ProviderErrorKind::not_sent. `sent` is told the moment the call goes
// out (retries of it are the same call); `settled` what it cost (USD, tokens) once it ended, before its slot
// is released, so that the next call's may_send already counts it.
struct CallGate {
  std::function<bool()> may_send;
  std::function<void()> sent;
  std::function<void(double usd, int64_t tokens)> settled;
};

class Provider {
 public:
  virtual ~Provider() = default;
  // Thread-safe: the campaign calls it from several threads; rate limits and the concurrency cap
  // are enforced inside (a call may block waiting for a slot).
  virtual ProviderResult<Reply> complete(const std::vector<ChatMessage>& messages, const CallGate& gate = {}) = 0;
  virtual const ModelConfig& config() const = 0;
};

// Builds the provider for `config`, reading the API key from config.api_key_env (registered with
// kf::secrets so that it can never be printed). Fails when the key variable is named but unset.
Result<std::shared_ptr<Provider>> make_provider(const ModelConfig& config);

}  // namespace kf::providers
