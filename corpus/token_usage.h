#pragma once
// A model call's token usage and its JSON, the "usage" object of corpus records (record.h), reply documents
// (reply_document.h) and `kforge ask --json`: the one reader and writer of that object. Meaning of the fields:
// docs/providers.md.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::corpus {

struct TokenUsage {
  int64_t input_tokens = 0;  // includes cached
  int64_t cached_input_tokens = 0;
  int64_t output_tokens = 0;  // excludes reasoning
  int64_t reasoning_tokens = 0;
  std::string reasoning_tokens_source;  // reported | estimated | none (docs/providers.md); empty in old records
  int64_t total() const { return input_tokens + output_tokens + reasoning_tokens; }

  // reasoning_tokens_source is left out when empty.
  nlohmann::json to_json() const;
  // As records are read: absent or null fields are 0 / "", a field of another type is an error that names it
  // ("usage.output_tokens is not an integer"). `j` is an object.
  static Result<TokenUsage> from_json(const nlohmann::json& j);
  // What can be salvaged: each field of its type, 0 / "" otherwise (a number is taken as a count whatever its
  // form). A reply document is read this way, for what it can still charge.
  static TokenUsage salvage(const nlohmann::json& j);
};

// The object's fields, for readers that scan a line without building the usage (corpus/summary.cpp): each
// count's key and member, and the key of the source.
struct TokenCount {
  std::string_view key;
  int64_t TokenUsage::*member;
};
inline constexpr TokenCount kTokenCounts[] = {{"input_tokens", &TokenUsage::input_tokens},
                                              {"cached_input_tokens", &TokenUsage::cached_input_tokens},
                                              {"output_tokens", &TokenUsage::output_tokens},
                                              {"reasoning_tokens", &TokenUsage::reasoning_tokens}};
inline constexpr std::string_view kReasoningSourceKey = "reasoning_tokens_source";

}  // namespace kf::corpus
