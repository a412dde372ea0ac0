// OpenAI Responses API wire format: typed events, reasoning summaries, a final response object.
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

nlohmann::json usage(const ResolvedReply& r) {
  nlohmann::json u = {{"input_tokens", r.input_tokens},
                      {"input_tokens_details", {{"cached_tokens", r.cached_tokens}}},
                      {"output_tokens", r.output_tokens + r.reasoning_tokens},
                      {"total_tokens", r.input_tokens + r.output_tokens + r.reasoning_tokens}};
  if (r.report_reasoning_tokens) u["output_tokens_details"] = {{"reasoning_tokens", r.reasoning_tokens}};
  return u;
}

std::string status(const ResolvedReply& r) { return r.finish_reason == "stop" ? "completed" : "incomplete"; }

nlohmann::json incomplete_details(const ResolvedReply& r) {
  if (r.finish_reason == "length") return {{"reason", "max_output_tokens"}};
  if (r.finish_reason == "content_filter") return {{"reason", "content_filter"}};
  return nullptr;
}

nlohmann::json reasoning_item(const ResolvedReply& r, bool done) {
  nlohmann::json summary = nlohmann::json::array();
  if (done) summary.push_back({{"type", "summary_text"}, {"text", r.reasoning}});
  return {{"id", "rs_" + r.id}, {"type", "reasoning"}, {"summary", summary}};
}

nlohmann::json message_item(const ResolvedReply& r, bool done) {
  nlohmann::json content = nlohmann::json::array();
  if (done) content.push_back({{"type", "output_text"}, {"text", r.answer}, {"annotations", nlohmann::json::array()}});
  return {{"id", "msg_" + r.id},
          {"type", "message"},
          {"status", done ? "completed" : "in_progress"},
          {"role", "assistant"},
          {"content", content}};
}

nlohmann::json response_object(const ResolvedReply& r, bool done) {
  nlohmann::json output = nlohmann::json::array();
  if (done) {
    if (!r.reasoning.empty()) output.push_back(reasoning_item(r, true));
    output.push_back(message_item(r, true));
  }
  return {{"id", "resp_" + r.id},
          {"object", "response"},
          {"created_at", r.created},
          {"status", done ? status(r) : "in_progress"},
          {"error", nullptr},
          {"incomplete_details", done ? incomplete_details(r) : nullptr},
          {"model", r.model},
          {"output", output},
          {"usage", done ? usage(r) : nullptr}};
}

}  // namespace

nlohmann::json openai_responses_body(const ResolvedReply& r) { return response_object(r, true); }

std::vector<SseEvent> openai_responses_events(const ResolvedReply& r) {
  std::vector<SseEvent> events;
  int64_t seq = 0;
  auto add = [&](const std::string& type, nlohmann::json data) {
    data["type"] = type;
    data["sequence_number"] = seq++;
    events.push_back({type, data.dump()});
  };
  add("response.created", {{"response", response_object(r, false)}});
  add("response.in_progress", {{"response", response_object(r, false)}});
  int output_index = 0;
  if (!r.reasoning.empty()) {
    const std::string item_id = "rs_" + r.id;
    add("response.output_item.added", {{"output_index", output_index}, {"item", reasoning_item(r, false)}});
    add("response.reasoning_summary_part.added", {{"item_id", item_id},
                                                  {"output_index", output_index},
                                                  {"summary_index", 0},
                                                  {"part", {{"type", "summary_text"}, {"text", ""}}}});
    for (const auto& piece : split_text(r.reasoning, r.chunk_chars)) {
      add("response.reasoning_summary_text.delta",
          {{"item_id", item_id}, {"output_index", output_index}, {"summary_index", 0}, {"delta", piece}});
    }
    add("response.reasoning_summary_text.done",
        {{"item_id", item_id}, {"output_index", output_index}, {"summary_index", 0}, {"text", r.reasoning}});
    add("response.reasoning_summary_part.done", {{"item_id", item_id},
                                                 {"output_index", output_index},
                                                 {"summary_index", 0},
                                                 {"part", {{"type", "summary_text"}, {"text", r.reasoning}}}});
    add("response.output_item.done", {{"output_index", output_index}, {"item", reasoning_item(r, true)}});
    ++output_index;
  }
  const std::string msg_id = "msg_" + r.id;
  add("response.output_item.added", {{"output_index", output_index}, {"item", message_item(r, false)}});
  add("response.content_part.added",
      {{"item_id", msg_id},
       {"output_index", output_index},
       {"content_index", 0},
       {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", nlohmann::json::array()}}}});
  for (const auto& piece : split_text(r.answer, r.chunk_chars)) {
    add("response.output_text.delta",
        {{"item_id", msg_id}, {"output_index", output_index}, {"content_index", 0}, {"delta", piece}});
  }
  add("response.output_text.done",
      {{"item_id", msg_id}, {"output_index", output_index}, {"content_index", 0}, {"text", r.answer}});
  add("response.content_part.done",
      {{"item_id", msg_id},
       {"output_index", output_index},
       {"content_index", 0},
       {"part", {{"type", "output_text"}, {"text", r.answer}, {"annotations", nlohmann::json::array()}}}});
  add("response.output_item.done", {{"output_index", output_index}, {"item", message_item(r, true)}});
  add(r.finish_reason == "stop" ? "response.completed" : "response.incomplete",
      {{"response", response_object(r, true)}});
  return events;
}

}  // namespace kf::mock
