#pragma once
// A model's reply as the corpus keeps it: DIR/replies/<stem>.json beside the record that names it
// (Record::reply->path). The loop writes it when the reply arrives, before judging, so that a stopped session
// resumes from it (its answer) and charges a reply it saved but never recorded (its cost and usage). The one
// reader and writer of those files; replies written before this type existed have the same keys.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "corpus/record.h"

namespace kf::corpus {

struct ReplyDocument {
  std::string answer;
  std::string reasoning;
  std::string finish_reason;
  std::string model;
  TokenUsage usage;  // reasoning_tokens_source: reported | estimated | none
  double cost_usd = 0;
  int attempts = 1;
  double latency_s = 0;
  std::string sent_at;                 // when the call was sent (ISO 8601 UTC)
  std::optional<double> queue_wait_s;  // its wait for a concurrency slot

  // The folder of the corpus that holds replies, and a turn's file in it.
  static constexpr const char* kFolder = "replies";
  static std::string relative_path(const std::string& stem) { return std::string(kFolder) + "/" + stem + ".json"; }

  nlohmann::json to_json() const;
  // nullopt when the text is not a reply: not JSON, not an object, or no string "answer" (a damaged file).
  static std::optional<ReplyDocument> parse(const std::string& text);
};

}  // namespace kf::corpus
