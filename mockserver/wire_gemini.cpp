// Gemini generateContent / streamGenerateContent wire format; thought summaries are parts with thought:true.
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

std::string finish_reason(const ResolvedReply& r) {
  if (r.finish_reason == "length") return "MAX_TOKENS";
  if (r.finish_reason == "content_filter") return "SAFETY";
  return "STOP";
}

// Gemini's candidatesTokenCount excludes thoughts; promptTokenCount includes cached content.
nlohmann::json usage_metadata(const ResolvedReply& r) {
  nlohmann::json u = {{"promptTokenCount", r.input_tokens},
                      {"candidatesTokenCount", r.output_tokens},
                      {"totalTokenCount", r.input_tokens + r.output_tokens + r.reasoning_tokens}};
  if (r.reasoning_tokens > 0 && r.report_reasoning_tokens) u["thoughtsTokenCount"] = r.reasoning_tokens;
  if (r.cached_tokens > 0) u["cachedContentTokenCount"] = r.cached_tokens;
  return u;
}

nlohmann::json candidate(nlohmann::json parts) {
  return {{"content", {{"parts", std::move(parts)}, {"role", "model"}}}, {"index", 0}};
}

}  // namespace

nlohmann::json gemini_body(const ResolvedReply& r) {
  nlohmann::json parts = nlohmann::json::array();
  if (!r.reasoning.empty()) parts.push_back({{"text", r.reasoning}, {"thought", true}});
  parts.push_back({{"text", r.answer}});
  nlohmann::json cand = candidate(parts);
  cand["finishReason"] = finish_reason(r);
  return {{"candidates", nlohmann::json::array({cand})},
          {"usageMetadata", usage_metadata(r)},
          {"modelVersion", r.model},
          {"responseId", r.id}};
}

std::vector<nlohmann::json> gemini_chunks(const ResolvedReply& r) {
  std::vector<nlohmann::json> chunks;
  auto add = [&](nlohmann::json part) {
    chunks.push_back({{"candidates", nlohmann::json::array({candidate(nlohmann::json::array({std::move(part)}))})},
                      {"usageMetadata", {{"promptTokenCount", r.input_tokens}, {"totalTokenCount", r.input_tokens}}},
                      {"modelVersion", r.model},
                      {"responseId", r.id}});
  };
  for (const auto& piece : split_text(r.reasoning, r.chunk_chars)) add({{"text", piece}, {"thought", true}});
  auto answer_pieces = split_text(r.answer, r.chunk_chars);
  if (answer_pieces.empty()) answer_pieces.push_back("");
  for (const auto& piece : answer_pieces) add({{"text", piece}});
  // The last chunk carries the finish reason and the final usage: Gemini streams have no other end marker.
  auto& last = chunks.back();
  last["candidates"][0]["finishReason"] = finish_reason(r);
  last["usageMetadata"] = usage_metadata(r);
  return chunks;
}

}  // namespace kf::mock
