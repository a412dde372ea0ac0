// The "usage" object's one reader and writer (corpus/token_usage.h): what records, reply documents and
// `kforge ask --json` write, read back strictly (records) or salvaged (reply documents).
#include <gtest/gtest.h>

#include "corpus/token_usage.h"

namespace kf::corpus {
namespace {

using json = nlohmann::json;

TEST(TokenUsage, WritesEveryCountAndTheSourceWhenKnown) {
  const TokenUsage u{100, 10, 20, 5, "reported"};
  EXPECT_EQ(u.to_json(), json::parse(R"({"input_tokens": 100, "cached_input_tokens": 10, "output_tokens": 20,
                                         "reasoning_tokens": 5, "reasoning_tokens_source": "reported"})"));
  EXPECT_EQ(u.total(), 125);
  EXPECT_FALSE(TokenUsage{}.to_json().contains("reasoning_tokens_source"));  // as records before it was kept
}

TEST(TokenUsage, ReadsBackWhatItWrites) {
  const TokenUsage u{100, 10, 20, 5, "estimated"};
  const auto back = TokenUsage::from_json(u.to_json());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), u.to_json());
  EXPECT_EQ(TokenUsage::salvage(u.to_json()).to_json(), u.to_json());
}

TEST(TokenUsage, AbsentOrNullFieldsAreZero) {
  const auto u = TokenUsage::from_json(json::parse(R"({"input_tokens": 7, "output_tokens": null})"));
  ASSERT_TRUE(u);
  EXPECT_EQ(u->input_tokens, 7);
  EXPECT_EQ(u->output_tokens, 0);
  EXPECT_EQ(u->reasoning_tokens_source, "");
}

TEST(TokenUsage, AFieldOfAnotherTypeIsAnErrorThatNamesIt) {
  auto u = TokenUsage::from_json(json::parse(R"({"output_tokens": 1.5})"));
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message, "usage.output_tokens is not an integer");
  u = TokenUsage::from_json(json::parse(R"({"reasoning_tokens_source": 3})"));
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message, "usage.reasoning_tokens_source is not a string");
}

TEST(TokenUsage, SalvageKeepsWhatHasItsTypeAndTakesAnyNumberAsACount) {
  const auto u = TokenUsage::salvage(
      json::parse(R"({"input_tokens": 12.0, "output_tokens": "many", "reasoning_tokens_source": 1})"));
  EXPECT_EQ(u.input_tokens, 12);
  EXPECT_EQ(u.output_tokens, 0);
  EXPECT_EQ(u.reasoning_tokens_source, "");
  EXPECT_EQ(TokenUsage::salvage(json("odd")).total(), 0);
}

}  // namespace
}  // namespace kf::corpus
