#include "providers/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kf::providers {
namespace {

struct Collector {
  std::vector<SseEvent> events;
  SseParser parser{[this](const SseEvent& e) { events.push_back(e); }};
};

// Feeds `text` in pieces of `piece` bytes.
std::vector<SseEvent> parse_in_pieces(const std::string& text, size_t piece, bool finish = true) {
  Collector c;
  for (size_t i = 0; i < text.size(); i += piece) c.parser.feed(std::string_view(text).substr(i, piece));
  if (finish) c.parser.finish();
  return c.events;
}

TEST(SseParser, ParsesNamedEventsWithIds) {
  const auto events =
      parse_in_pieces("event: message_start\nid: 7\ndata: {\"a\":1}\n\nevent: ping\ndata: {}\n\n", 1000);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "message_start");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[0].id, "7");
  EXPECT_TRUE(events[0].terminated);
  EXPECT_EQ(events[1].event, "ping");
  EXPECT_EQ(events[1].id, "7") << "the last event id persists";
}

TEST(SseParser, SameEventsWhateverTheSplitPoints) {
  const std::string text = "data: one\n\n: keep-alive\n\nevent: e\ndata: two\ndata: lines\n\ndata:three\n\n";
  const auto whole = parse_in_pieces(text, text.size());
  ASSERT_EQ(whole.size(), 3u);
  for (size_t piece = 1; piece < 8; ++piece) {
    const auto split = parse_in_pieces(text, piece);
    ASSERT_EQ(split.size(), whole.size()) << "piece " << piece;
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(split[i].data, whole[i].data);
      EXPECT_EQ(split[i].event, whole[i].event);
    }
  }
  EXPECT_EQ(whole[1].data, "two\nlines");
  EXPECT_EQ(whole[2].data, "three") << "no space after the colon is fine";
}

TEST(SseParser, AcceptsCrlfAndCrLineEndsEvenWhenSplitBetweenCrAndLf) {
  for (const std::string eol : {"\r\n", "\r", "\n"}) {
    const std::string text = "event: a" + eol + "data: x" + eol + eol + "data: y" + eol + "data: z" + eol + eol;
    for (size_t piece = 1; piece <= text.size(); ++piece) {
      const auto events = parse_in_pieces(text, piece);
      ASSERT_EQ(events.size(), 2u) << "eol size " << eol.size() << " piece " << piece;
      EXPECT_EQ(events[0].event, "a");
      EXPECT_EQ(events[0].data, "x");
      EXPECT_EQ(events[1].data, "y\nz");
    }
  }
}

TEST(SseParser, CommentsAreSkippedAndCounted) {
  Collector c;
  c.parser.feed(": OPENROUTER PROCESSING\n\n:ping\ndata: 1\n\n");
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "1");
  EXPECT_EQ(c.parser.comments_seen(), 2);
}

TEST(SseParser, FinalEventWithoutBlankLineIsDeliveredAsUnterminated) {
  const auto events = parse_in_pieces("data: [DONE]", 3);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "[DONE]");
  EXPECT_FALSE(events[0].terminated);
}

TEST(SseParser, NothingPendingMeansNothingAtFinish) {
  const auto events = parse_in_pieces("data: a\n\n", 2);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].terminated);
}

TEST(SseParser, EventWithoutDataIsNotDispatched) {
  const auto events = parse_in_pieces("event: lonely\n\ndata: a\n\n", 100);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "") << "the name of a data-less event must not leak into the next one";
}

TEST(SseParser, EmptyDataLineDispatchesEmptyData) {
  const auto events = parse_in_pieces("data:\n\n", 100);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "");
}

TEST(SseParser, FieldWithoutColonAndUnknownFieldsAreIgnored) {
  const auto events = parse_in_pieces("retry: 100\nbogus: 1\ndata\ndata: b\n\n", 100);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "\nb") << "a bare `data` line is a data field with an empty value";
}

}  // namespace
}  // namespace kf::providers
