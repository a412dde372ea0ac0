// Anthropic Messages API (POST {base}/messages): text, thinking and redacted_thinking blocks.
#include "providers/api_adapter.h"
#include "providers/api_common.h"

namespace kf::providers {
namespace {
using api::json;

constexpr const char* kRedactedMarker = "[redacted thinking]";

std::string normalise_stop(const std::string& reason) {
  if (reason == "end_turn" || reason == "stop_sequence") return "stop";
  // model_context_window_exceeded: the output ran into the context window (API 2025+, SDK v0.119.0).
  if (reason == "max_tokens" || reason == "model_context_window_exceeded") return "length";
  if (reason == "refusal") return "content_filter";
  return reason;
}

// Anthropic's input_tokens excludes cache reads and writes; ours includes them. Each field a usage object
// reports replaces the earlier figure: message_delta repeats them cumulatively, or leaves them out, or sends
// them as null ({"input_tokens": null, "output_tokens": 4, ...}), which must not erase message_start's.
struct InputCounts {
  int64_t input = 0, cache_read = 0, cache_creation = 0;
  void take(const json& u) {
    if (auto v = api::reported_count(u, "input_tokens")) input = *v;
    if (auto v = api::reported_count(u, "cache_read_input_tokens")) cache_read = *v;
    if (auto v = api::reported_count(u, "cache_creation_input_tokens")) cache_creation = *v;
  }
  void into(Usage& usage) const {
    usage.input_tokens = input + cache_read + cache_creation;
    usage.cached_input_tokens = cache_read;
  }
};

// output_tokens includes thinking. Newer responses say how much in output_tokens_details.thinking_tokens
// (in message_delta and in a whole body); older ones do not, and the split is then estimated from the
// characters of thinking and answer text (exact in cost when prices.reasoning equals prices.output).
std::optional<int64_t> thinking_tokens(const json& usage) {
  return api::reported_count(api::member(usage, "output_tokens_details"), "thinking_tokens");
}

class Blocks {
 public:
  void start(const json& block) {
    const std::string type = api::str(block, "type");
    if (type == "thinking") {
      if (!reply_->reasoning.empty()) reply_->reasoning += "\n\n";
      thinking(api::str(block, "thinking"));
    } else if (type == "redacted_thinking") {
      if (!reply_->reasoning.empty()) reply_->reasoning += "\n\n";
      reply_->reasoning += kRedactedMarker;  // encrypted: nothing readable, but it happened
    } else if (type == "text") {
      reply_->answer += api::str(block, "text");
    }
  }
  void thinking(const std::string& text) {
    reply_->reasoning += text;
    thinking_chars_ += text.size();
  }
  void text(const std::string& t) { reply_->answer += t; }
  size_t thinking_chars() const { return thinking_chars_; }
  void bind(Reply* reply) { reply_ = reply; }

 private:
  Reply* reply_ = nullptr;
  size_t thinking_chars_ = 0;
};

class AnthropicStreamDecoder final : public StreamDecoder {
 public:
  AnthropicStreamDecoder() { blocks_.bind(&reply_); }

  std::optional<AttemptError> on_event(const SseEvent& event) override {
    if (stopped_) return std::nullopt;
    auto parsed = api::event_json(event);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* data = &std::get<json>(parsed);
    const std::string type = api::str(*data, "type", event.event);
    if (type == "message_start") {
      const json& message = api::member(*data, "message");
      reply_.model = api::str(message, "model");
      const json& u = api::member(message, "usage");
      inputs_.take(u);
      inputs_.into(reply_.usage);
      output_tokens_ = api::int64(u, "output_tokens");
      if (auto t = thinking_tokens(u)) thinking_tokens_ = t;
    } else if (type == "content_block_start") {
      blocks_.start(api::member(*data, "content_block"));
    } else if (type == "content_block_delta") {
      const json& delta = api::member(*data, "delta");
      const std::string delta_type = api::str(delta, "type");
      if (delta_type == "text_delta") blocks_.text(api::str(delta, "text"));
      if (delta_type == "thinking_delta") blocks_.thinking(api::str(delta, "thinking"));
      // signature_delta authenticates the thinking block; it carries no text.
    } else if (type == "message_delta") {
      if (auto stop = api::str(api::member(*data, "delta"), "stop_reason"); !stop.empty())
        reply_.finish_reason = normalise_stop(stop);
      const json& u = api::member(*data, "usage");
      if (auto v = api::reported_count(u, "output_tokens")) output_tokens_ = *v;
      if (auto t = thinking_tokens(u)) thinking_tokens_ = t;
      inputs_.take(u);
      inputs_.into(reply_.usage);
    } else if (type == "message_stop") {
      stopped_ = true;
    } else if (type == "error") {
      AttemptError err = api::error_from_object(ApiFamily::anthropic, *data, 0);
      err.usage = reply_.usage;
      return err;
    }
    // ping and content_block_stop need nothing.
    return std::nullopt;
  }

  AttemptResult finish(StreamEnd) override {
    if (!stopped_) return api::truncated("the stream ended without message_stop");
    api::split_output(output_tokens_, thinking_tokens_, reply_.answer.size(), blocks_.thinking_chars(), reply_.usage);
    return api::finalize(std::move(reply_));
  }

 private:
  Reply reply_;
  Blocks blocks_;
  InputCounts inputs_;
  int64_t output_tokens_ = 0;
  std::optional<int64_t> thinking_tokens_;
  bool stopped_ = false;
};

class AnthropicAdapter final : public ApiAdapter {
 public:
  explicit AnthropicAdapter(const ModelConfig& config) : config_(config) {}

  HttpRequest build_request(const std::vector<ChatMessage>& messages, bool stream) const override {
    const auto& g = config_.generation;
    json body = {{"model", config_.model}, {"max_tokens", g.max_output_tokens}, {"stream", stream}};
    std::string system;
    json msgs = json::array();
    for (const auto& m : messages) {
      if (m.role == "system") {
        if (!system.empty()) system += "\n\n";
        system += m.content;
      } else {
        msgs.push_back({{"role", m.role}, {"content", m.content}});
      }
    }
    body["messages"] = std::move(msgs);
    if (!system.empty()) body["system"] = system;
    if (g.thinking_budget_tokens && *g.thinking_budget_tokens > 0)
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *g.thinking_budget_tokens}};
    if (g.temperature) body["temperature"] = *g.temperature;
    if (g.top_p) body["top_p"] = *g.top_p;
    return api::json_post(config_.base_url + "/messages", {{"anthropic-version", "2023-06-01"}}, body, stream);
  }

  void add_auth(HttpRequest& request, const std::string& api_key) const override {
    if (!api_key.empty()) request.headers.emplace_back("x-api-key", api_key);
  }

  AttemptResult parse_body(std::string_view body) const override {
    auto parsed = api::body_object(body);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* j = &std::get<json>(parsed);
    if (api::str(*j, "type") == "error" || j->contains("error"))
      return api::error_from_object(ApiFamily::anthropic, *j, 0);
    const json& content = api::member(*j, "content");
    if (!content.is_array()) return api::malformed("the response has no content[]: " + api::excerpt(body, 120));
    Reply reply;
    Blocks blocks;
    blocks.bind(&reply);
    for (const auto& block : content) blocks.start(block);
    reply.model = api::str(*j, "model");
    reply.finish_reason = normalise_stop(api::str(*j, "stop_reason"));
    const json& u = api::member(*j, "usage");
    InputCounts inputs;
    inputs.take(u);
    inputs.into(reply.usage);
    api::split_output(api::int64(u, "output_tokens"), thinking_tokens(u), reply.answer.size(), blocks.thinking_chars(),
                      reply.usage);
    return api::finalize(std::move(reply));
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<AnthropicStreamDecoder>(); }
  std::string end_marker() const override { return "message_stop"; }

 private:
  const ModelConfig& config_;
};

}  // namespace

std::unique_ptr<ApiAdapter> make_anthropic_adapter(const ModelConfig& config) {
  return std::make_unique<AnthropicAdapter>(config);
}

}  // namespace kf::providers
