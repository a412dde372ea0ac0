#include "providers/think_splitter.h"

#include <gtest/gtest.h>

#include <string>

namespace kf::providers {
namespace {

struct Split {
  std::string answer;
  std::string reasoning;
};

Split split_in_pieces(const std::string& text, size_t piece) {
  ThinkTagSplitter s;
  for (size_t i = 0; i < text.size(); i += piece) s.feed(std::string_view(text).substr(i, piece));
  s.finish();
  return {s.answer(), s.reasoning()};
}

void expect_split_everywhere(const std::string& text, const std::string& answer, const std::string& reasoning) {
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    const auto r = split_in_pieces(text, piece);
    EXPECT_EQ(r.answer, answer) << "piece " << piece;
    EXPECT_EQ(r.reasoning, reasoning) << "piece " << piece;
  }
}

TEST(ThinkTagSplitter, SeparatesThinkBlockFromAnswer) {
  expect_split_everywhere("<think>let me see</think>\n\nThe answer.", "The answer.", "let me see");
}

TEST(ThinkTagSplitter, MissingOpeningTagMakesTheLeadingTextReasoning) {
  expect_split_everywhere("step 1, step 2\n</think>\n\nfinal", "final", "step 1, step 2\n");
}

TEST(ThinkTagSplitter, NoTagsAtAllIsAllAnswer) {
  expect_split_everywhere("just <b>an</b> answer with < and </ inside", "just <b>an</b> answer with < and </ inside",
                          "");
}

TEST(ThinkTagSplitter, UnterminatedThinkIsReasoning) {
  expect_split_everywhere("<think>ran out of tok", "", "ran out of tok");
}

TEST(ThinkTagSplitter, PartialTagAtTheVeryEndIsText) {
  expect_split_everywhere("answer ends with </thi", "answer ends with </thi", "");
}

TEST(ThinkTagSplitter, TextAfterThinkKeepsLaterAngleBrackets) {
  expect_split_everywhere("<think>a<b</think>x < y", "x < y", "a<b");
}

}  // namespace
}  // namespace kf::providers
