#pragma once
// The Provider every API kind shares: rate limits, retries, timeouts, raw logging and error
// messages around one ApiAdapter.
#include <memory>
#include <mutex>
#include <random>

#include "providers/api_adapter.h"
#include "providers/provider.h"
#include "providers/rate_limiter.h"

namespace kf::providers {

class HttpProvider final : public Provider {
 public:
  HttpProvider(ModelConfig config, std::string api_key);

  ProviderResult<Reply> complete(const std::vector<ChatMessage>& messages, const CallGate& gate = {}) override;
  const ModelConfig& config() const override { return config_; }

 private:
  AttemptResult attempt_once(const HttpRequest& request, HttpExchange& exchange, std::string& body);
  ProviderError to_provider_error(const AttemptError& error, int attempts) const;
  std::string advice_for(const AttemptError& error) const;
  double uniform01();

  ModelConfig config_;
  std::string api_key_;
  std::unique_ptr<ApiAdapter> adapter_;
  RateLimiter limiter_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_;
};

}  // namespace kf::providers
