#pragma once
// A model's reply as the corpus keeps it: DIR/replies/<stem>.json beside the record that names it
// (Record::reply->path). The loop writes it when the reply arrives, before judging, so that a stopped session
// resumes from it (its answer) and charges a reply it saved but never recorded (its cost and usage). The one
// reader and writer of those files; replies written before this type existed have the same keys.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "corpus/record.h"
#include "providers/provider.h"

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

  // A provider's reply as the corpus keeps it, and back (a saved reply judged on resume).
  static ReplyDocument from_reply(const providers::Reply& reply, std::string sent_at,
                                  std::optional<double> queue_wait_s);
  providers::Reply to_reply() const;
  // What the record that names it (at `path`, relative to the run folder) keeps of it.
  ReplyRef ref(const std::string& path) const;

  nlohmann::json to_json() const;
  // nullopt when the text is not a reply: not JSON, not an object, or no string "answer" (a damaged file).
  static std::optional<ReplyDocument> parse(const std::string& text);
};

// A provider's token counts as the corpus keeps them.
TokenUsage token_usage(const providers::Usage& usage);

}  // namespace kf::corpus
