#include "providers/provider.h"

#include <algorithm>
#include <cstdlib>

#include "core/secrets.h"
#include "providers/http_provider.h"

namespace kf::providers {

double cost_usd(const Usage& usage, const Prices& prices) {
  const double cached = static_cast<double>(std::clamp<int64_t>(usage.cached_input_tokens, 0, usage.input_tokens));
  const double uncached = static_cast<double>(usage.input_tokens) - cached;
  return (uncached * prices.input + cached * prices.cached_input +
          static_cast<double>(usage.output_tokens) * prices.output +
          static_cast<double>(usage.reasoning_tokens) * prices.reasoning) /
         1e6;
}

std::string to_string(ProviderErrorKind kind) {
  switch (kind) {
    case ProviderErrorKind::auth: return "auth";
    case ProviderErrorKind::quota: return "quota";
    case ProviderErrorKind::rate_limit: return "rate_limit";
    case ProviderErrorKind::server: return "server";
    case ProviderErrorKind::network: return "network";
    case ProviderErrorKind::bad_request: return "bad_request";
    case ProviderErrorKind::malformed: return "malformed";
    case ProviderErrorKind::truncated: return "truncated";
    case ProviderErrorKind::content_filter: return "content_filter";
    case ProviderErrorKind::output_limit: return "output_limit";
    case ProviderErrorKind::not_sent: return "not_sent";
  }
  return "unknown";
}

std::string to_string(ErrorCause cause) {
  switch (cause) {
    case ErrorCause::none: return "none";
    case ErrorCause::out_of_credit: return "out_of_credit";
    case ErrorCause::daily_quota: return "daily_quota";
    case ErrorCause::zero_quota: return "zero_quota";
    case ErrorCause::billing_required: return "billing_required";
    case ErrorCause::key_invalid: return "key_invalid";
    case ErrorCause::context_length: return "context_length";
    case ErrorCause::request_too_large: return "request_too_large";
    case ErrorCause::model_not_found: return "model_not_found";
    case ErrorCause::wait_too_long: return "wait_too_long";
  }
  return "unknown";
}

std::string to_string(Usage::ReasoningSource source) {
  switch (source) {
    case Usage::ReasoningSource::reported: return "reported";
    case Usage::ReasoningSource::estimated: return "estimated";
    case Usage::ReasoningSource::none: return "none";
  }
  return "unknown";
}

Result<std::shared_ptr<Provider>> make_provider(const ModelConfig& config) {
  const std::string file = config.source_path.empty() ? "the model configuration" : config.source_path;
  if (config.base_url.empty())
    return make_error("provider.no_base_url", "base_url is empty in " + file + ": set it to the endpoint's URL.");
  if (config.model.empty())
    return make_error("provider.no_model", "model is empty in " + file + ": set it to the model's name.");
  std::string key;
  if (!config.api_key_env.empty()) {
    const char* value = std::getenv(config.api_key_env.c_str());
    if (value == nullptr || *value == '\0') {
      return make_error("provider.missing_key", "environment variable " + config.api_key_env + " (api_key_env in " +
                                                    file + ") is not set: export " + config.api_key_env +
                                                    "=<your API key> and rerun.");
    }
    key = value;
    secrets::add(key);
  }
  return std::shared_ptr<Provider>(std::make_shared<HttpProvider>(config, std::move(key)));
}

}  // namespace kf::providers
