// OpenAI Chat Completions (POST {base}/chat/completions) and the OpenAI-compatible servers that
// speak it (vLLM, SGLang, Ollama /v1, llama.cpp, DeepSeek, OpenRouter). Compatible servers also
// put reasoning in `reasoning_content` / `reasoning` or inside <think> tags in the content.
#include "providers/openai_common.h"
#include "providers/think_splitter.h"

namespace kf::providers {
namespace {
using api::json;

std::string normalise_finish(const std::string& reason) {
  if (reason == "stop" || reason == "length" || reason == "content_filter") return reason;
  if (reason == "eos" || reason == "end_turn") return "stop";  // some compatible servers
  return reason;
}

// Compatible servers (vLLM, Ollama, llama.cpp) often leave out completion_tokens_details: the
// reasoning share of completion_tokens is then estimated from the text.
// DeepSeek reports cached input as prompt_cache_hit_tokens.
Usage usage_from(const json& u, const Reply& reply) {
  Usage usage = api::openai::usage_from(u, reply, api::openai::kChatUsage);
  if (usage.cached_input_tokens == 0) usage.cached_input_tokens = api::int64(u, "prompt_cache_hit_tokens");
  return usage;
}

// Answer and reasoning text as they arrive, with <think> handling for compatible servers.
class TextSink {
 public:
  explicit TextSink(bool split_think_tags) : split_(split_think_tags) {}
  void content(const std::string& text) {
    if (split_)
      splitter_.feed(text);
    else
      answer_ += text;
  }
  void reasoning(const std::string& text) { reasoning_ += text; }
  void finish_into(Reply& reply) {
    if (split_) {
      splitter_.finish();
      answer_ = splitter_.answer();
      if (!splitter_.reasoning().empty()) reasoning_ += (reasoning_.empty() ? "" : "\n\n") + splitter_.reasoning();
    }
    reply.answer = std::move(answer_);
    reply.reasoning = std::move(reasoning_);
  }

 private:
  bool split_;
  ThinkTagSplitter splitter_;
  std::string answer_;
  std::string reasoning_;
};

// `content` as a string, or as Mistral's typed chunks (Magistral, reasoning_effort): [{"type": "thinking",
// "thinking": [{"type": "text", "text": ...}]}, {"type": "text", "text": ...}], in messages and in deltas.
void take_content(const json& content, TextSink& sink) {
  if (content.is_string()) return sink.content(content.get<std::string>());
  if (!content.is_array()) return;
  for (const auto& chunk : content) {
    const std::string type = api::str(chunk, "type");
    if (type == "text") sink.content(api::str(chunk, "text"));
    if (type != "thinking") continue;
    const json& thinking = api::member(chunk, "thinking");
    if (thinking.is_string()) sink.reasoning(thinking.get<std::string>());
    if (thinking.is_array())
      for (const auto& part : thinking) sink.reasoning(api::str(part, "text"));
  }
}

void take_reasoning_fields(const json& message_or_delta, TextSink& sink) {
  for (const char* key : {"reasoning_content", "reasoning"}) {
    const json& v = api::member(message_or_delta, key);
    if (v.is_string()) {
      sink.reasoning(v.get<std::string>());
      return;  // servers that send both send the same text twice
    }
  }
}

// vLLM's reasoning parsers put a whole answer into reasoning_content / reasoning (content null) when the
// model never opened or closed a think block (thinking disabled by the template, or a model that omits
// <think>). A compatible server's finished reply with reasoning and no answer at all is therefore the answer.
void promote_reasoning_without_answer(bool compatible, Reply& reply) {
  if (!compatible || reply.finish_reason != "stop") return;
  if (reply.answer.find_first_not_of(" \t\r\n") != std::string::npos || reply.reasoning.empty()) return;
  reply.answer = std::move(reply.reasoning);
  reply.reasoning.clear();
}

class ChatStreamDecoder final : public StreamDecoder {
 public:
  explicit ChatStreamDecoder(bool compatible) : compatible_(compatible), text_(compatible) {}

  std::optional<AttemptError> on_event(const SseEvent& event) override {
    if (done_) return std::nullopt;
    if (event.data == "[DONE]") {
      done_ = true;
      return std::nullopt;
    }
    auto parsed = api::event_json(event);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* chunk = &std::get<json>(parsed);
    if (chunk->contains("error")) return api::error_from_object(ApiFamily::openai, *chunk, 0);
    if (auto model = api::str(*chunk, "model"); !model.empty()) reply_.model = model;
    if (const json& u = api::member(*chunk, "usage"); u.is_object()) usage_ = u;
    const json& choices = api::member(*chunk, "choices");
    if (choices.is_array() && !choices.empty()) {
      const json& choice = choices[0];
      const json& delta = api::member(choice, "delta");
      take_content(api::member(delta, "content"), text_);
      if (const json& r = api::member(delta, "refusal"); r.is_string() && !r.get<std::string>().empty())
        refused_ = true;
      take_reasoning_fields(delta, text_);
      if (const json& f = api::member(choice, "finish_reason"); f.is_string())
        reply_.finish_reason = normalise_finish(f.get<std::string>());
    }
    return std::nullopt;
  }

  AttemptResult finish(StreamEnd end) override {
    // Some compatible servers (ik_llama.cpp, llama-box, mlc-llm) close the stream after the finish_reason
    // chunk without `data: [DONE]`; a stream the server closed itself after a finish_reason is whole.
    if (!done_ && !(end == StreamEnd::clean && !reply_.finish_reason.empty())) {
      return api::truncated(
          "the stream ended without `data: [DONE]`" +
          std::string(reply_.finish_reason.empty() ? "" : " (after finish_reason " + reply_.finish_reason + ")"));
    }
    text_.finish_into(reply_);
    if (refused_) reply_.finish_reason = "content_filter";
    promote_reasoning_without_answer(compatible_, reply_);
    reply_.usage = usage_from(usage_, reply_);
    return api::finalize(std::move(reply_));
  }

 private:
  bool compatible_;
  TextSink text_;
  Reply reply_;
  json usage_;
  bool done_ = false;
  bool refused_ = false;
};

class ChatAdapter final : public api::openai::Adapter {
 public:
  ChatAdapter(const ModelConfig& config, bool compatible) : Adapter(config), compatible_(compatible) {}

  HttpRequest build_request(const std::vector<ChatMessage>& messages, bool stream) const override {
    const auto& g = config_.generation;
    json body = body_base(stream);
    json msgs = json::array();
    for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(msgs);
    // OpenAI's reasoning models accept only max_completion_tokens; compatible servers all know
    // the older max_tokens.
    body[compatible_ ? "max_tokens" : "max_completion_tokens"] = g.max_output_tokens;
    if (g.reasoning_effort) body["reasoning_effort"] = *g.reasoning_effort;
    if (stream) body["stream_options"] = {{"include_usage", true}};
    return post("/chat/completions", body, stream);
  }

  AttemptResult parse_body(std::string_view body) const override {
    auto parsed = api::body_object(body);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* j = &std::get<json>(parsed);
    if (j->contains("error")) return api::error_from_object(ApiFamily::openai, *j, 0);
    const json& choices = api::member(*j, "choices");
    if (!choices.is_array() || choices.empty())
      return api::malformed("the response has no choices[]: " + api::excerpt(body, 120));
    Reply reply;
    TextSink text(compatible_);
    const json& message = api::member(choices[0], "message");
    take_content(api::member(message, "content"), text);
    take_reasoning_fields(message, text);
    reply.finish_reason = normalise_finish(api::str(choices[0], "finish_reason"));
    if (const json& r = api::member(message, "refusal"); r.is_string() && !r.get<std::string>().empty())
      reply.finish_reason = "content_filter";
    reply.model = api::str(*j, "model");
    text.finish_into(reply);
    promote_reasoning_without_answer(compatible_, reply);
    reply.usage = usage_from(api::member(*j, "usage"), reply);
    return api::finalize(std::move(reply));
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override {
    return std::make_unique<ChatStreamDecoder>(compatible_);
  }
  std::string end_marker() const override { return "data: [DONE]"; }

 private:
  bool compatible_;
};

}  // namespace

std::unique_ptr<ApiAdapter> make_openai_chat_adapter(const ModelConfig& config, bool compatible) {
  return std::make_unique<ChatAdapter>(config, compatible);
}

}  // namespace kf::providers
