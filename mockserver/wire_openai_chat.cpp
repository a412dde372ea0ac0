// OpenAI Chat Completions wire format (also spoken by vLLM, SGLang, Ollama /v1, llama.cpp, DeepSeek).
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

nlohmann::json chat_usage(const ResolvedReply& r) {
  nlohmann::json u = {{"prompt_tokens", r.input_tokens},
                      {"completion_tokens", r.output_tokens + r.reasoning_tokens},
                      {"total_tokens", r.input_tokens + r.output_tokens + r.reasoning_tokens},
                      {"prompt_tokens_details", {{"cached_tokens", r.cached_tokens}}}};
  // vLLM, Ollama and llama.cpp send no completion_tokens_details.
  if (r.report_reasoning_tokens) u["completion_tokens_details"] = {{"reasoning_tokens", r.reasoning_tokens}};
  return u;
}

const char* reasoning_field(const ResolvedReply& r) {
  return r.reasoning_form == ReasoningForm::reasoning ? "reasoning" : "reasoning_content";
}

nlohmann::json chunk(const ResolvedReply& r, nlohmann::json delta, nlohmann::json finish, bool include_usage) {
  nlohmann::json c = {{"id", "chatcmpl-" + r.id},
                      {"object", "chat.completion.chunk"},
                      {"created", r.created},
                      {"model", r.model},
                      {"system_fingerprint", "fp_mock"},
                      {"choices", nlohmann::json::array({{{"index", 0},
                                                          {"delta", std::move(delta)},
                                                          {"logprobs", nullptr},
                                                          {"finish_reason", std::move(finish)}}})}};
  if (include_usage) c["usage"] = nullptr;
  return c;
}

}  // namespace

nlohmann::json openai_chat_body(const ResolvedReply& r) {
  nlohmann::json message = {{"role", "assistant"}, {"content", chat_content_with_reasoning(r)}};
  if (!r.reasoning.empty() && !reasoning_in_content(r)) message[reasoning_field(r)] = r.reasoning;
  return {{"id", "chatcmpl-" + r.id},
          {"object", "chat.completion"},
          {"created", r.created},
          {"model", r.model},
          {"system_fingerprint", "fp_mock"},
          {"choices",
           nlohmann::json::array(
               {{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", r.finish_reason}}})},
          {"usage", chat_usage(r)}};
}

std::vector<SseEvent> openai_chat_events(const ResolvedReply& r, bool include_usage) {
  std::vector<SseEvent> events;
  auto add = [&](nlohmann::json delta, nlohmann::json finish = nullptr) {
    events.push_back({"", chunk(r, std::move(delta), std::move(finish), include_usage).dump()});
  };
  add({{"role", "assistant"}, {"content", ""}});
  if (!r.reasoning.empty() && !reasoning_in_content(r)) {
    for (const auto& piece : split_text(r.reasoning, r.chunk_chars)) add({{reasoning_field(r), piece}});
  }
  for (const auto& piece : split_text(chat_content_with_reasoning(r), r.chunk_chars)) add({{"content", piece}});
  add(nlohmann::json::object(), r.finish_reason);
  if (include_usage) {
    nlohmann::json last = {
        {"id", "chatcmpl-" + r.id}, {"object", "chat.completion.chunk"}, {"created", r.created},
        {"model", r.model},         {"system_fingerprint", "fp_mock"},   {"choices", nlohmann::json::array()},
        {"usage", chat_usage(r)}};
    events.push_back({"", last.dump()});
  }
  events.push_back({"", "[DONE]"});
  return events;
}

}  // namespace kf::mock
