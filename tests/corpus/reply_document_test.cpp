// The reply file's owner: replies written before the type existed read the same; what it writes reads back.
// Label unit.
#include <gtest/gtest.h>

#include "core/files.h"
#include "corpus/reply_document.h"

using kf::corpus::ReplyDocument;

namespace {
std::string fixture(const std::string& name) {
  auto text = kf::read_file(std::string(KFORGE_TEST_SOURCE_DIR) + "/tests/corpus/fixtures/replies_v1/" + name);
  return text ? *text : std::string();
}
}  // namespace

TEST(ReplyDocument, ReadsAReplyWrittenBeforeSentAtWasKept) {
  auto r = ReplyDocument::parse(fixture("before_sent_at.json"));
  ASSERT_TRUE(r);
  EXPECT_NE(r->answer.find("kf_forward"), std::string::npos);
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->model, "bench-model");
  EXPECT_EQ(r->usage.input_tokens, 1800);
  EXPECT_EQ(r->usage.reasoning_tokens, 60);
  EXPECT_EQ(r->usage.reasoning_tokens_source, "reported");
  EXPECT_DOUBLE_EQ(r->cost_usd, 0.00276);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->sent_at, "");
  EXPECT_FALSE(r->queue_wait_s);
}

TEST(ReplyDocument, WritesTheLayoutItReadsKeyForKey) {
  const std::string text = fixture("with_queue_wait.json");
  auto r = ReplyDocument::parse(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->queue_wait_s, 0.25);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(r->usage.cached_input_tokens, 1000);
  EXPECT_EQ(r->to_json().dump(2), text);
}

TEST(ReplyDocument, DamagedFilesAreNoReply) {
  EXPECT_FALSE(ReplyDocument::parse("{ torn"));
  EXPECT_FALSE(ReplyDocument::parse("[]"));
  EXPECT_FALSE(ReplyDocument::parse(R"({"answer": 3})"));
  auto bare = ReplyDocument::parse(R"({"answer": "x", "usage": "odd", "attempts": "two"})");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->attempts, 1);
  EXPECT_EQ(bare->usage.reasoning_tokens_source, "none");
  EXPECT_EQ(ReplyDocument::relative_path("c__p__s0__t1"), "replies/c__p__s0__t1.json");
}
