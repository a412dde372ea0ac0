// OpenAI Responses API (POST {base}/responses): reasoning arrives as summaries
// (reasoning_summary_text) or, on some servers, as raw reasoning_text.
#include "providers/openai_common.h"

namespace kf::providers {
namespace {
using api::json;

Usage usage_from(const json& u, const Reply& reply) {
  return api::openai::usage_from(u, reply, api::openai::kResponsesUsage);
}

void append_paragraph(std::string& to, const std::string& text) {
  if (text.empty()) return;
  if (!to.empty()) to += "\n\n";
  to += text;
}

// Fills answer/reasoning from a response object's output[] items.
void take_output(const json& response, Reply& reply, bool& refused) {
  const json& output = api::member(response, "output");
  if (!output.is_array()) return;
  for (const auto& item : output) {
    const std::string type = api::str(item, "type");
    if (type == "message") {
      for (const auto& part : api::member(item, "content")) {
        const std::string part_type = api::str(part, "type");
        if (part_type == "output_text") reply.answer += api::str(part, "text");
        if (part_type == "refusal") refused = true;
      }
    } else if (type == "reasoning") {
      for (const char* key : {"summary", "content"}) {
        const json& parts = api::member(item, key);
        if (!parts.is_array()) continue;
        for (const auto& part : parts) append_paragraph(reply.reasoning, api::str(part, "text"));
      }
    }
  }
}

// Status and incomplete_details of a finished response -> finish_reason.
std::string finish_reason_of(const json& response) {
  const std::string status = api::str(response, "status");
  if (status == "incomplete") {
    const std::string reason = api::str(api::member(response, "incomplete_details"), "reason");
    if (reason == "max_output_tokens") return "length";
    if (reason == "content_filter") return "content_filter";
    return reason.empty() ? "incomplete" : reason;
  }
  if (status == "completed" || status.empty()) return "stop";
  return status;
}

AttemptResult reply_from_response(const json& response) {
  if (api::str(response, "status") == "failed") {
    const json& error = api::member(response, "error");
    AttemptError err = api::error_from_object(ApiFamily::openai, error.is_null() ? json::object() : error, 0);
    err.usage = usage_from(api::member(response, "usage"), Reply{});
    return err;
  }
  Reply reply;
  bool refused = false;
  take_output(response, reply, refused);
  reply.model = api::str(response, "model");
  reply.usage = usage_from(api::member(response, "usage"), reply);
  reply.finish_reason = refused ? "content_filter" : finish_reason_of(response);
  return api::finalize(std::move(reply));
}

class ResponsesStreamDecoder final : public StreamDecoder {
 public:
  std::optional<AttemptError> on_event(const SseEvent& event) override {
    if (terminal_) return std::nullopt;
    auto parsed = api::event_json(event);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* data = &std::get<json>(parsed);
    const std::string type = api::str(*data, "type", event.event);
    if (type == "response.created" || type == "response.in_progress") {
      reply_.model = api::str(api::member(*data, "response"), "model", reply_.model);
    } else if (type == "response.output_text.delta") {
      reply_.answer += api::str(*data, "delta");
    } else if (type == "response.refusal.delta") {
      refused_ = true;
    } else if (type == "response.reasoning_summary_text.delta" || type == "response.reasoning_text.delta") {
      // A new summary part or reasoning item starts a new paragraph.
      const std::string part = api::str(*data, "item_id") + "/" + std::to_string(api::int64(*data, "summary_index")) +
                               "/" + std::to_string(api::int64(*data, "content_index"));
      if (part != reasoning_part_ && !reply_.reasoning.empty()) reply_.reasoning += "\n\n";
      reasoning_part_ = part;
      reply_.reasoning += api::str(*data, "delta");
    } else if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
      terminal_ = true;
      final_response_ = api::member(*data, "response");
    } else if (type == "error") {
      return api::error_from_object(ApiFamily::openai, *data, 0);
    }
    return std::nullopt;
  }

  AttemptResult finish(StreamEnd) override {
    if (!terminal_)
      return api::truncated("the stream ended without response.completed, response.incomplete or response.failed");
    AttemptResult from_final = reply_from_response(final_response_);
    if (auto* err = std::get_if<AttemptError>(&from_final)) {
      if (err->kind != ProviderErrorKind::output_limit) return from_final;
    }
    // The deltas are authoritative; the final object fills in what a server did not stream.
    Reply reply = std::move(reply_);
    Reply final_reply;
    bool refused_in_output = false;
    take_output(final_response_, final_reply, refused_in_output);
    if (reply.answer.empty()) reply.answer = final_reply.answer;
    if (reply.reasoning.empty()) reply.reasoning = final_reply.reasoning;
    reply.model = api::str(final_response_, "model", reply.model);
    reply.usage = usage_from(api::member(final_response_, "usage"), reply);
    reply.finish_reason = (refused_ || refused_in_output) ? "content_filter" : finish_reason_of(final_response_);
    return api::finalize(std::move(reply));
  }

 private:
  Reply reply_;
  json final_response_;
  std::string reasoning_part_;
  bool terminal_ = false;
  bool refused_ = false;
};

class ResponsesAdapter final : public api::openai::Adapter {
 public:
  explicit ResponsesAdapter(const ModelConfig& config) : Adapter(config) {}

  HttpRequest build_request(const std::vector<ChatMessage>& messages, bool stream) const override {
    const auto& g = config_.generation;
    json body = body_base(stream);
    body["store"] = false;
    std::string instructions;
    json input = json::array();
    for (const auto& m : messages) {
      if (m.role == "system") {
        append_paragraph(instructions, m.content);
      } else {
        input.push_back({{"role", m.role}, {"content", m.content}});
      }
    }
    body["input"] = std::move(input);
    if (!instructions.empty()) body["instructions"] = instructions;
    body["max_output_tokens"] = g.max_output_tokens;
    if (g.reasoning_effort) body["reasoning"] = {{"effort", *g.reasoning_effort}, {"summary", "auto"}};
    return post("/responses", body, stream);
  }

  AttemptResult parse_body(std::string_view body) const override {
    auto parsed = api::body_object(body);
    if (auto* err = std::get_if<AttemptError>(&parsed)) return std::move(*err);
    const json* j = &std::get<json>(parsed);
    if (j->contains("error") && !api::member(*j, "error").is_null() && !j->contains("output"))
      return api::error_from_object(ApiFamily::openai, *j, 0);
    if (!j->contains("output") && !j->contains("status"))
      return api::malformed("the response has neither output[] nor status: " + api::excerpt(body, 120));
    return reply_from_response(*j);
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<ResponsesStreamDecoder>(); }
  std::string end_marker() const override { return "response.completed"; }
};

}  // namespace

std::unique_ptr<ApiAdapter> make_openai_responses_adapter(const ModelConfig& config) {
  return std::make_unique<ResponsesAdapter>(config);
}

}  // namespace kf::providers
