// Gemini generateContent / streamGenerateContent?alt=sse: thought parts are reasoning; a stream is
// complete only once a chunk carried a finishReason.
#include "providers/api_adapter.h"
#include "providers/api_common.h"

namespace kf::providers {
namespace {
using api::json;

std::string normalise_finish(const std::string& reason) {
  if (reason == "STOP") return "stop";
  if (reason == "MAX_TOKENS") return "length";
  if (reason == "SAFETY" || reason == "RECITATION" || reason == "BLOCKLIST" || reason == "PROHIBITED_CONTENT" ||
      reason == "SPII" || reason == "IMAGE_SAFETY" || reason == "LANGUAGE")
    return "content_filter";
  std::string out = reason;
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Usage usage_from(const json& u) {
  Usage usage;
  usage.input_tokens = api::int64(u, "promptTokenCount");
  usage.cached_input_tokens = api::int64(u, "cachedContentTokenCount");
  usage.output_tokens = api::int64(u, "candidatesTokenCount");  // thoughts are counted apart
  // Gemini counts thoughts apart and omits thoughtsTokenCount when there were none.
  usage.reasoning_tokens = api::int64(u, "thoughtsTokenCount");
  usage.reasoning_source =
      api::reported_count(u, "thoughtsTokenCount") ? Usage::ReasoningSource::reported : Usage::ReasoningSource::none;
  return usage;
}

// Folds one GenerateContentResponse (a whole body or one stream chunk) into `reply`.
// Returns true when it carried a finishReason (or a prompt block, which ends the response too).
bool take_chunk(const json& chunk, Reply& reply) {
  bool finished = false;
  if (const json& u = api::member(chunk, "usageMetadata"); u.is_object()) reply.usage = usage_from(u);
  if (auto model = api::str(chunk, "modelVersion"); !model.empty()) reply.model = model;
  if (auto block = api::str(api::member(chunk, "promptFeedback"), "blockReason"); !block.empty()) {
    reply.finish_reason = "content_filter";
    finished = true;
  }
  const json& candidates = api::member(chunk, "candidates");
  if (candidates.is_array() && !candidates.empty()) {
    const json& candidate = candidates[0];
    const json& parts = api::member(api::member(candidate, "content"), "parts");
    if (parts.is_array()) {
      for (const auto& part : parts) {
        const bool thought = api::member(part, "thought").is_boolean() && part["thought"].get<bool>();
        (thought ? reply.reasoning : reply.answer) += api::str(part, "text");
      }
    }
    if (auto reason = api::str(candidate, "finishReason"); !reason.empty() && reason != "FINISH_REASON_UNSPECIFIED") {
      reply.finish_reason = normalise_finish(reason);
      finished = true;
    }
  }
  return finished;
}

class GeminiStreamDecoder final : public StreamDecoder {
 public:
  std::optional<AttemptError> on_event(const SseEvent& event) override {
    auto parsed = api::event_json(event);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* chunk = &std::get<json>(parsed);
    if (chunk->contains("error")) return api::error_from_object(ApiFamily::gemini, *chunk, 0);
    if (take_chunk(*chunk, reply_)) finished_ = true;
    return std::nullopt;
  }

  AttemptResult finish(StreamEnd) override {
    if (!finished_) return api::truncated("the stream ended before any chunk carried a finishReason");
    return api::finalize(std::move(reply_));
  }

 private:
  Reply reply_;
  bool finished_ = false;
};

class GeminiAdapter final : public ApiAdapter {
 public:
  explicit GeminiAdapter(const ModelConfig& config) : config_(config) {}

  HttpRequest build_request(const std::vector<ChatMessage>& messages, bool stream) const override {
    const auto& g = config_.generation;
    json contents = json::array();
    std::string system;
    for (const auto& m : messages) {
      if (m.role == "system") {
        if (!system.empty()) system += "\n\n";
        system += m.content;
      } else {
        contents.push_back(
            {{"role", m.role == "assistant" ? "model" : "user"}, {"parts", json::array({{{"text", m.content}}})}});
      }
    }
    json generation = {{"maxOutputTokens", g.max_output_tokens}};
    if (g.temperature) generation["temperature"] = *g.temperature;
    if (g.top_p) generation["topP"] = *g.top_p;
    json thinking = {{"includeThoughts", true}};
    if (g.thinking_budget_tokens) thinking["thinkingBudget"] = *g.thinking_budget_tokens;
    generation["thinkingConfig"] = std::move(thinking);
    json body = {{"contents", std::move(contents)}, {"generationConfig", std::move(generation)}};
    if (!system.empty()) body["systemInstruction"] = {{"parts", json::array({{{"text", system}}})}};
    return api::json_post(config_.base_url + "/models/" + config_.model +
                              (stream ? ":streamGenerateContent?alt=sse" : ":generateContent"),
                          {}, body, stream);
  }

  void add_auth(HttpRequest& request, const std::string& api_key) const override {
    if (!api_key.empty()) request.headers.emplace_back("x-goog-api-key", api_key);
  }

  AttemptResult parse_body(std::string_view body) const override {
    auto parsed = api::body_object(body);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* j = &std::get<json>(parsed);
    if (j->contains("error")) return api::error_from_object(ApiFamily::gemini, *j, 0);
    if (!j->contains("candidates") && !j->contains("promptFeedback"))
      return api::malformed("the response has no candidates[]: " + api::excerpt(body, 120));
    Reply reply;
    take_chunk(*j, reply);
    if (reply.model.empty()) reply.model = config_.model;
    return api::finalize(std::move(reply));
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<GeminiStreamDecoder>(); }
  std::string end_marker() const override { return "a chunk with finishReason"; }

 private:
  const ModelConfig& config_;
};

}  // namespace

std::unique_ptr<ApiAdapter> make_gemini_adapter(const ModelConfig& config) {
  return std::make_unique<GeminiAdapter>(config);
}

}  // namespace kf::providers
