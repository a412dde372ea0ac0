#include "providers/http_provider.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "core/log.h"
#include "core/secrets.h"
#include "providers/api_common.h"
#include "providers/error_classifier.h"
#include "providers/raw_exchange_log.h"
#include "providers/retry.h"

namespace kf::providers {
namespace {

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<ApiAdapter> make_adapter(const ModelConfig& config) {
  switch (config.provider) {
    case ProviderKind::openai_chat: return make_openai_chat_adapter(config, /*compatible=*/false);
    case ProviderKind::openai_compatible: return make_openai_chat_adapter(config, /*compatible=*/true);
    case ProviderKind::openai_responses: return make_openai_responses_adapter(config);
    case ProviderKind::anthropic: return make_anthropic_adapter(config);
    case ProviderKind::gemini: return make_gemini_adapter(config);
  }
  return make_openai_chat_adapter(config, false);
}

double estimated_tokens(const std::vector<ChatMessage>& messages, int64_t max_output) {
  size_t chars = 0;
  for (const auto& m : messages) chars += m.content.size();
  return static_cast<double>(chars) / 4.0 + static_cast<double>(max_output);
}

std::string outcome_text(const AttemptResult& r) {
  if (const auto* reply = std::get_if<Reply>(&r)) return "reply (finish " + reply->finish_reason + ")";
  const auto& e = std::get<AttemptError>(r);
  return to_string(e.kind) + ": " + e.detail;
}

}  // namespace

HttpProvider::HttpProvider(ModelConfig config, std::string api_key)
    : config_(std::move(config)),
      api_key_(std::move(api_key)),
      limiter_(config_.rate_limits, steady_clock_seconds()),
      rng_(std::random_device{}()) {
  while (!config_.base_url.empty() && config_.base_url.back() == '/') config_.base_url.pop_back();
  adapter_ = make_adapter(config_);
}

double HttpProvider::uniform01() {
  std::lock_guard lock(rng_mutex_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

AttemptResult HttpProvider::attempt_once(const HttpRequest& request, HttpExchange& exchange, std::string& body) {
  const bool stream = config_.generation.stream;
  std::unique_ptr<StreamDecoder> decoder = stream ? adapter_->stream_decoder() : nullptr;
  std::optional<AttemptError> stream_error;
  SseParser parser([&](const SseEvent& event) {
    if (!stream_error) stream_error = decoder->on_event(event);
  });
  auto is_success = [](int status) { return status >= 200 && status < 300; };

  exchange = http_post(request, [&](int status, std::string_view chunk) {
    body.append(chunk);
    if (stream && is_success(status)) {
      parser.feed(chunk);
      if (stream_error) return false;
    }
    return true;
  });

  if (stream_error) return *stream_error;
  if (exchange.status != 0 && !is_success(exchange.status))
    return api::error_from_http(api_family(config_.provider), exchange.status, exchange.headers, body, epoch_seconds());
  if (exchange.failure && stream && exchange.failure->kind == TransportFailureKind::cut) {
    // The connection broke; if the stream had already delivered its end marker, the reply is whole.
    parser.finish();
    if (!stream_error) {
      AttemptResult whole = decoder->finish(StreamEnd::cut);
      if (std::holds_alternative<Reply>(whole)) return whole;
    }
  }
  if (exchange.failure) {
    AttemptError err;
    err.retryable = true;
    const auto& f = *exchange.failure;
    switch (f.kind) {
      case TransportFailureKind::cut:
        err.kind = ProviderErrorKind::truncated;
        err.detail = "the connection broke in the middle of the response: " + api::excerpt(f.message);
        break;
      case TransportFailureKind::idle_timeout:
        err.kind = ProviderErrorKind::network;
        err.detail = "the server went silent: " + f.message;
        break;
      case TransportFailureKind::total_timeout:
        err.kind = ProviderErrorKind::network;
        err.detail = "timed out: " + api::excerpt(f.message) + " (timeouts.total_s / timeouts.connect_s)";
        break;
      default:
        err.kind = exchange.body_started ? ProviderErrorKind::truncated : ProviderErrorKind::network;
        err.detail = api::excerpt(f.message);
        break;
    }
    return err;
  }
  if (!stream) return adapter_->parse_body(body);

  parser.finish();
  if (stream_error) return *stream_error;
  if (parser.events_dispatched() == 0) {
    // A server that ignored stream:true (or reported an error with status 200) sent plain JSON.
    const auto first = body.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && body[first] == '{') return adapter_->parse_body(body);
    // Not an event stream at all (an HTML page from a wrong base_url or a login proxy): not a cut stream.
    if (first != std::string::npos && parser.comments_seen() == 0)
      return api::malformed("HTTP 200 without an event stream: " + api::describe_body(body, 200));
  }
  return decoder->finish(StreamEnd::clean);
}

ProviderResult<Reply> HttpProvider::complete(const std::vector<ChatMessage>& messages, const CallGate& gate) {
  const double estimate = estimated_tokens(messages, config_.generation.max_output_tokens);
  const auto slot = limiter_.acquire_call(estimate);
  if (gate.may_send && !gate.may_send()) {
    limiter_.refund_tokens(estimate);
    ProviderError held;
    held.kind = ProviderErrorKind::not_sent;
    held.attempts = 0;
    held.message = config_.name + ": not sent (a stop or a budget cap came while the call waited for a slot)";
    return held;
  }

  HttpRequest request = adapter_->build_request(messages, config_.generation.stream);
  request.timeouts = config_.timeouts;
  request.idle_from_start = config_.generation.stream;
  std::unique_ptr<RawExchangeLog> raw_log;
  if (!config_.raw_log_dir.empty())  // recorded before the credentials are added
    raw_log = std::make_unique<RawExchangeLog>(config_.raw_log_dir, config_.name, request);
  adapter_->add_auth(request, api_key_);

  const int max_attempts = std::max(1, config_.retry.max_attempts);
  for (int attempt = 1;; ++attempt) {
    limiter_.acquire_attempt();
    if (attempt == 1 && gate.sent) gate.sent();
    HttpExchange exchange;
    std::string body;
    AttemptResult result = attempt_once(request, exchange, body);
    if (raw_log) raw_log->add_attempt(exchange, body, outcome_text(result));

    if (auto* reply = std::get_if<Reply>(&result)) {
      reply->attempts = attempt;
      reply->latency_s = exchange.seconds;
      reply->cost_usd = cost_usd(reply->usage, config_.prices);
      if (reply->model.empty()) reply->model = config_.model;
      // A model (or a server) echoing a key must not carry it into transcripts and the corpus.
      reply->answer = secrets::redact(reply->answer);
      reply->reasoning = secrets::redact(reply->reasoning);
      const auto& u = reply->usage;
      limiter_.refund_tokens(estimate - static_cast<double>(u.input_tokens + u.output_tokens + u.reasoning_tokens));
      if (raw_log) raw_log->write(outcome_text(result));
      if (gate.settled) gate.settled(reply->cost_usd, u.input_tokens + u.output_tokens + u.reasoning_tokens);
      return std::move(*reply);
    }

    AttemptError& error = std::get<AttemptError>(result);
    if (error.retryable && error.server_wait_s && *error.server_wait_s > config_.retry.max_server_wait_s) {
      // A per-day limit can ask for hours: failing now with the reason beats a worker asleep that long.
      error.retryable = false;
      error.cause = ErrorCause::wait_too_long;
      error.detail += " (the server asks to wait " +
                      std::to_string(static_cast<int64_t>(std::ceil(*error.server_wait_s))) +
                      " s before a retry, more than retry.max_server_wait_s = " +
                      std::to_string(static_cast<int64_t>(config_.retry.max_server_wait_s)) + " s)";
    }
    if (!error.retryable || attempt >= max_attempts) {
      ProviderError final_error = to_provider_error(error, attempt);
      if (raw_log) raw_log->write(to_string(final_error.kind) + ": " + final_error.message);
      if (gate.settled) {
        const auto& u = final_error.usage;
        gate.settled(cost_usd(u, config_.prices), u.input_tokens + u.output_tokens + u.reasoning_tokens);
      }
      return final_error;
    }
    const double delay = retry_delay_seconds(config_.retry, attempt, error.server_wait_s, uniform01());
    log::info(secrets::redact(config_.name + ": attempt " + std::to_string(attempt) + " failed (" +
                              to_string(error.kind) + ": " + error.detail + "); retrying in " +
                              std::to_string(static_cast<int>(delay * 1000)) + " ms"));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
}

std::string HttpProvider::advice_for(const AttemptError& error) const {
  const std::string file = config_.source_path.empty() ? "the model configuration" : config_.source_path;
  switch (error.cause) {
    case ErrorCause::daily_quota:
      return "A per-day quota is used up; retrying today cannot succeed. It resets once a day (Gemini: midnight "
             "Pacific time): rerun then (finished work is resumed), or move the project to a higher tier.";
    case ErrorCause::zero_quota:
      return "The quota for model '" + config_.model +
             "' is 0 on this account's tier: it cannot be used without "
             "enabling billing or choosing another model in " +
             file + ".";
    case ErrorCause::billing_required:
      return "The provider requires billing to be enabled for this project: enable it in the provider's console, "
             "then rerun.";
    case ErrorCause::context_length:
      return "The prompt is longer than the model's context: keep fewer turns (loop.keep_last_attempts in " + file +
             "), lower generation.max_output_tokens, or use a model with a longer context.";
    case ErrorCause::request_too_large:
      return "The request exceeds the API's size limit: keep fewer turns (loop.keep_last_attempts in " + file + ").";
    case ErrorCause::model_not_found:
      return "The endpoint does not know model '" + config_.model + "': check model and base_url (" + config_.base_url +
             ") in " + file + ".";
    case ErrorCause::wait_too_long:
      return "Rerun later (finished work is resumed), or raise retry.max_server_wait_s in " + file +
             " to let kforge wait that long.";
    case ErrorCause::key_invalid:
      if (!config_.api_key_env.empty())
        return "The key was rejected: check that $" + config_.api_key_env + " holds a valid, current key for " +
               config_.base_url + ".";
      break;
    default: break;
  }
  switch (error.kind) {
    case ProviderErrorKind::auth:
      return config_.api_key_env.empty()
                 ? "The endpoint wants a key: set api_key_env in " + file + " to the variable holding it."
                 : "Check that $" + config_.api_key_env + " holds a valid key for " + config_.base_url +
                       " that may use model '" + config_.model + "'.";
    case ProviderErrorKind::quota:
      return "The account has no quota or credit left: add credit or raise the spend limit in the provider's "
             "console, then rerun.";
    case ProviderErrorKind::rate_limit:
      return "Still rate limited: lower rate_limits (requests_per_minute, tokens_per_minute, max_concurrent) in " +
             file + ", or raise retry.max_attempts.";
    case ProviderErrorKind::server:
      return "The provider kept failing: try again later, or raise retry.max_attempts in " + file + ".";
    case ProviderErrorKind::network:
      return "Check base_url (" + config_.base_url + "), the network or proxy, and timeouts in " + file + ".";
    case ProviderErrorKind::bad_request:
      return "The endpoint rejected the request: check model ('" + config_.model +
             "'), generation settings and the provider kind in " + file + ".";
    case ProviderErrorKind::malformed:
      return "The response is not valid " + to_string(config_.provider) +
             ": check that the provider kind matches the server at " + config_.base_url +
             " (set raw_log_dir to see the exchange).";
    case ProviderErrorKind::truncated:
      return "The response ended before " + adapter_->end_marker() +
             ": usually a dropped connection; rerun, or set generation.stream to false if it keeps happening.";
    case ProviderErrorKind::content_filter:
      return "The provider refused or filtered the output; this prompt cannot be answered by this model as "
             "configured.";
    case ProviderErrorKind::not_sent: return "Nothing was sent; rerun to make the call.";
    case ProviderErrorKind::output_limit:
      return "Raise generation.max_output_tokens (now " + std::to_string(config_.generation.max_output_tokens) +
             ") or lower the reasoning effort / thinking budget in " + file + ".";
  }
  return "";
}

ProviderError HttpProvider::to_provider_error(const AttemptError& error, int attempts) const {
  const std::string advice = advice_for(error);
  ProviderError out;
  out.kind = error.kind;
  out.http_status = error.http_status;
  out.attempts = attempts;
  out.usage = error.usage;
  out.cause = error.cause;
  out.advice = secrets::redact(advice);
  out.message = secrets::redact(config_.name + " (" + to_string(config_.provider) + "): " + to_string(error.kind) +
                                " after " + std::to_string(attempts) + (attempts == 1 ? " attempt" : " attempts") +
                                ": " + error.detail + ". " + advice);
  return out;
}

}  // namespace kf::providers
