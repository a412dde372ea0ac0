#include "corpus/reply_document.h"

namespace kf::corpus {
using json = nlohmann::json;
namespace {

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
template <typename T>
T num(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<T>() : fallback;
}

}  // namespace

json ReplyDocument::to_json() const {
  json j = {{"answer", answer},     {"reasoning", reasoning},   {"finish_reason", finish_reason},
            {"model", model},       {"usage", usage.to_json()}, {"cost_usd", cost_usd},
            {"attempts", attempts}, {"latency_s", latency_s},   {"sent_at", sent_at}};
  if (queue_wait_s) j["queue_wait_s"] = *queue_wait_s;
  return j;
}

std::optional<ReplyDocument> ReplyDocument::parse(const std::string& text) {
  const json doc = json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("answer") || !doc["answer"].is_string()) return std::nullopt;
  ReplyDocument r;
  r.answer = doc["answer"].get<std::string>();
  r.reasoning = str(doc, "reasoning");
  r.finish_reason = str(doc, "finish_reason");
  r.model = str(doc, "model");
  if (doc.contains("usage")) r.usage = TokenUsage::salvage(doc["usage"]);
  if (r.usage.reasoning_tokens_source.empty()) r.usage.reasoning_tokens_source = "none";
  r.cost_usd = num<double>(doc, "cost_usd", 0.0);
  r.attempts = num<int>(doc, "attempts", 1);
  r.latency_s = num<double>(doc, "latency_s", 0.0);
  r.sent_at = str(doc, "sent_at");
  if (doc.contains("queue_wait_s") && doc["queue_wait_s"].is_number())
    r.queue_wait_s = doc["queue_wait_s"].get<double>();
  return r;
}

}  // namespace kf::corpus

namespace kf::corpus {

TokenUsage token_usage(const providers::Usage& u) {
  return {u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens, to_string(u.reasoning_source)};
}

ReplyDocument ReplyDocument::from_reply(const providers::Reply& r, std::string sent_at,
                                        std::optional<double> queue_wait_s) {
  return {r.answer,   r.reasoning, r.finish_reason,    r.model,     token_usage(r.usage), r.cost_usd,
          r.attempts, r.latency_s, std::move(sent_at), queue_wait_s};
}

providers::Reply ReplyDocument::to_reply() const {
  using Source = providers::Usage::ReasoningSource;
  providers::Reply r;
  r.answer = answer;
  r.reasoning = reasoning;
  r.finish_reason = finish_reason;
  r.model = model;
  r.cost_usd = cost_usd;
  r.attempts = attempts;
  r.latency_s = latency_s;
  r.usage.input_tokens = usage.input_tokens;
  r.usage.cached_input_tokens = usage.cached_input_tokens;
  r.usage.output_tokens = usage.output_tokens;
  r.usage.reasoning_tokens = usage.reasoning_tokens;
  const std::string& source = usage.reasoning_tokens_source;
  r.usage.reasoning_source = source == "reported"    ? Source::reported
                             : source == "estimated" ? Source::estimated
                                                     : Source::none;
  return r;
}

ReplyRef ReplyDocument::ref(const std::string& path) const {
  return {path,
          finish_reason,
          model,
          attempts,
          latency_s,
          static_cast<int64_t>(answer.size()),
          static_cast<int64_t>(reasoning.size())};
}

}  // namespace kf::corpus
