// Anthropic Messages wire format, with extended-thinking and redacted-thinking blocks.
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

std::string stop_reason(const ResolvedReply& r) {
  if (r.finish_reason == "length") return "max_tokens";
  if (r.finish_reason == "content_filter") return "refusal";
  return "end_turn";
}

// Anthropic counts cache reads apart from input_tokens, and thinking inside output_tokens; newer
// responses also say how much of it was thinking (output_tokens_details.thinking_tokens).
nlohmann::json usage(const ResolvedReply& r, int64_t output_tokens, bool final_counts) {
  nlohmann::json u = {{"input_tokens", r.input_tokens - r.cached_tokens},
                      {"cache_creation_input_tokens", 0},
                      {"cache_read_input_tokens", r.cached_tokens},
                      {"output_tokens", output_tokens}};
  if (final_counts && r.report_reasoning_tokens) u["output_tokens_details"] = {{"thinking_tokens", r.reasoning_tokens}};
  return u;
}

std::string signature(const ResolvedReply& r) {
  return r.thinking_signature.empty() ? "mock-signature-" + r.id : r.thinking_signature;
}

}  // namespace

nlohmann::json anthropic_body(const ResolvedReply& r) {
  nlohmann::json content = nlohmann::json::array();
  if (!r.reasoning.empty())
    content.push_back({{"type", "thinking"}, {"thinking", r.reasoning}, {"signature", signature(r)}});
  if (!r.redacted_thinking.empty()) content.push_back({{"type", "redacted_thinking"}, {"data", r.redacted_thinking}});
  content.push_back({{"type", "text"}, {"text", r.answer}});
  return {{"id", "msg_" + r.id},      {"type", "message"},
          {"role", "assistant"},      {"model", r.model},
          {"content", content},       {"stop_reason", stop_reason(r)},
          {"stop_sequence", nullptr}, {"usage", usage(r, r.output_tokens + r.reasoning_tokens, true)}};
}

std::vector<SseEvent> anthropic_events(const ResolvedReply& r) {
  std::vector<SseEvent> events;
  auto add = [&](const char* name, nlohmann::json data) { events.push_back({name, data.dump()}); };
  add("message_start", {{"type", "message_start"},
                        {"message",
                         {{"id", "msg_" + r.id},
                          {"type", "message"},
                          {"role", "assistant"},
                          {"model", r.model},
                          {"content", nlohmann::json::array()},
                          {"stop_reason", nullptr},
                          {"stop_sequence", nullptr},
                          {"usage", usage(r, 1, false)}}}});
  int index = 0;
  auto block = [&](nlohmann::json start, const std::vector<nlohmann::json>& deltas) {
    add("content_block_start",
        {{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(start)}});
    if (index == 0) add("ping", {{"type", "ping"}});
    for (const auto& d : deltas)
      add("content_block_delta", {{"type", "content_block_delta"}, {"index", index}, {"delta", d}});
    add("content_block_stop", {{"type", "content_block_stop"}, {"index", index}});
    ++index;
  };
  if (!r.reasoning.empty()) {
    std::vector<nlohmann::json> deltas;
    for (const auto& piece : split_text(r.reasoning, r.chunk_chars))
      deltas.push_back({{"type", "thinking_delta"}, {"thinking", piece}});
    deltas.push_back({{"type", "signature_delta"}, {"signature", signature(r)}});
    block({{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}, deltas);
  }
  if (!r.redacted_thinking.empty()) block({{"type", "redacted_thinking"}, {"data", r.redacted_thinking}}, {});
  std::vector<nlohmann::json> text_deltas;
  for (const auto& piece : split_text(r.answer, r.chunk_chars))
    text_deltas.push_back({{"type", "text_delta"}, {"text", piece}});
  block({{"type", "text"}, {"text", ""}}, text_deltas);
  add("message_delta",
      {{"type", "message_delta"},
       {"delta", {{"stop_reason", stop_reason(r)}, {"stop_sequence", nullptr}}},
       {"usage", r.report_reasoning_tokens ? usage(r, r.output_tokens + r.reasoning_tokens, true)
                                           : nlohmann::json{{"output_tokens", r.output_tokens + r.reasoning_tokens}}}});
  add("message_stop", {{"type", "message_stop"}});
  return events;
}

}  // namespace kf::mock
