#pragma once
// What the two OpenAI adapters (Chat Completions and Responses) share: the POST with bearer
// authentication, the sampling fields, and the usage object (same shape, different names).
// Internal to providers/.
#include <string>

#include "providers/api_adapter.h"
#include "providers/api_common.h"

namespace kf::providers::api::openai {

// The names one API gives the fields of its usage object.
struct UsageNames {
  const char* input;           // prompt_tokens | input_tokens
  const char* input_details;   // ...{cached_tokens}
  const char* output;          // completion_tokens | output_tokens
  const char* output_details;  // ...{reasoning_tokens}
};
inline constexpr UsageNames kChatUsage{"prompt_tokens", "prompt_tokens_details", "completion_tokens",
                                       "completion_tokens_details"};
inline constexpr UsageNames kResponsesUsage{"input_tokens", "input_tokens_details", "output_tokens",
                                            "output_tokens_details"};

// Token counts from `u`; the reasoning share is the reported one or, without it, estimated from `reply`'s text.
Usage usage_from(const json& u, const Reply& reply, const UsageNames& names);

// The base of both adapters: the configuration, the request body's common fields and bearer authentication.
class Adapter : public ApiAdapter {
 public:
  void add_auth(HttpRequest& request, const std::string& api_key) const override;

 protected:
  explicit Adapter(const ModelConfig& config) : config_(config) {}
  // {"model", "stream"} plus temperature and top_p when the configuration sets them.
  json body_base(bool stream) const;
  // POST {base_url}{path} with `body`.
  HttpRequest post(const std::string& path, const json& body, bool stream) const;

  const ModelConfig& config_;
};

}  // namespace kf::providers::api::openai
