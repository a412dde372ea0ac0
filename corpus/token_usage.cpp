#include "corpus/token_usage.h"

namespace kf::corpus {
using json = nlohmann::json;

json TokenUsage::to_json() const {
  json j = json::object();
  for (const auto& count : kTokenCounts) j[std::string(count.key)] = this->*count.member;
  if (!reasoning_tokens_source.empty()) j[std::string(kReasoningSourceKey)] = reasoning_tokens_source;
  return j;
}

Result<TokenUsage> TokenUsage::from_json(const json& j) {
  TokenUsage u;
  for (const auto& count : kTokenCounts) {
    const auto it = j.find(count.key);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_number_integer() && !it->is_number_unsigned())
      return make_error("corpus.usage", "usage." + std::string(count.key) + " is not an integer");
    u.*count.member = it->get<int64_t>();
  }
  if (const auto it = j.find(kReasoningSourceKey); it != j.end() && !it->is_null()) {
    if (!it->is_string())
      return make_error("corpus.usage", "usage." + std::string(kReasoningSourceKey) + " is not a string");
    u.reasoning_tokens_source = it->get<std::string>();
  }
  return u;
}

TokenUsage TokenUsage::salvage(const json& j) {
  TokenUsage u;
  if (!j.is_object()) return u;
  for (const auto& count : kTokenCounts)
    if (const auto it = j.find(count.key); it != j.end() && it->is_number()) u.*count.member = it->get<int64_t>();
  if (const auto it = j.find(kReasoningSourceKey); it != j.end() && it->is_string())
    u.reasoning_tokens_source = it->get<std::string>();
  return u;
}

}  // namespace kf::corpus
