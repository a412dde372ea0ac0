#include "providers/openai_common.h"

namespace kf::providers::api::openai {

Usage usage_from(const json& u, const Reply& reply, const UsageNames& names) {
  Usage usage;
  usage.input_tokens = int64(u, names.input);
  usage.cached_input_tokens = int64(member(u, names.input_details), "cached_tokens");
  split_output(int64(u, names.output), reported_count(member(u, names.output_details), "reasoning_tokens"),
               reply.answer.size(), reply.reasoning.size(), usage);
  return usage;
}

void Adapter::add_auth(HttpRequest& request, const std::string& api_key) const {
  if (!api_key.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key);
}

json Adapter::body_base(bool stream) const {
  const auto& g = config_.generation;
  json body = {{"model", config_.model}, {"stream", stream}};
  if (g.temperature) body["temperature"] = *g.temperature;
  if (g.top_p) body["top_p"] = *g.top_p;
  return body;
}

HttpRequest Adapter::post(const std::string& path, const json& body, bool stream) const {
  return json_post(config_.base_url + path, {}, body, stream);
}

}  // namespace kf::providers::api::openai
