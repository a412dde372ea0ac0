#include <gtest/gtest.h>

#include "mockserver/script.h"
#include "mockserver/wire.h"

namespace kf::mock {
namespace {

Result<Script> parse(const char* text) { return parse_script(nlohmann::json::parse(text)); }

TEST(MockScript, DefaultsForPlainAndMatchedEntries) {
  auto s = parse(R"([{"answer": "a"}, {"match": "relu", "answer": "b"}, {"answer": "c", "times": 3},
                     {"match": "x", "times": 2, "answer": "d"}, {"answer": "e", "times": "unlimited"}])");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->entries.size(), 5u);
  EXPECT_EQ(s->entries[0].times, 1);
  EXPECT_EQ(s->entries[1].times, -1);
  EXPECT_EQ(s->entries[2].times, 3);
  EXPECT_EQ(s->entries[3].times, 2);
  EXPECT_EQ(s->entries[4].times, -1);
}

TEST(MockScript, ParsesFaultFields) {
  auto s = parse(R"([{"status": 429, "retry_after": 2, "retry_after_ms": 1500, "x_should_retry": false,
                      "error_type": "insufficient_quota", "delay_s": 0.5, "api": ["anthropic", "gemini"]},
                     {"answer": "x", "stream_cut_after": {"bytes": 10, "abort": true}, "malformed_json": true,
                      "error_event_mid_stream": {"after_events": 2, "type": "overloaded_error"},
                      "sse": {"line_ending": "crlf", "comments": true}}])");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto& f = s->entries[0];
  EXPECT_EQ(f.status, 429);
  EXPECT_EQ(*f.retry_after, "2");
  EXPECT_EQ(*f.retry_after_ms, 1500);
  EXPECT_FALSE(*f.x_should_retry);
  EXPECT_EQ(f.apis, (std::vector<Api>{Api::anthropic, Api::gemini}));
  const auto& r = s->entries[1];
  ASSERT_TRUE(r.stream_cut.has_value());
  EXPECT_EQ(r.stream_cut->unit, StreamCut::Unit::bytes);
  EXPECT_TRUE(r.stream_cut->abort_connection);
  EXPECT_EQ(r.error_event->after_events, 2);
  EXPECT_EQ(r.sse.line_ending, "\r\n");
}

TEST(MockScript, ReportsEveryProblemWithEntryAndField) {
  auto s = parse(R"([{"answer": 5, "colour": "red"}, {"match": "(", "usage": {"input": -1, "bogus": 1}},
                     {"status": 429, "answer": "x"}, {"reasoning_form": "tags", "times": 0}, 7])");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  for (const char* expected : {"entry 0: answer: must be a string", "entry 0: colour: unknown field",
                               "entry 1: match: invalid regular expression", "entry 1: usage.input: must be >= 0",
                               "entry 1: usage.bogus: unknown field", "entry 2: answer:", "entry 3: reasoning_form:",
                               "entry 3: times: must be >= 1", "entry 4: must be an object"}) {
    EXPECT_NE(m.find(expected), std::string::npos) << "missing '" << expected << "' in:\n" << m;
  }
}

TEST(MockScript, RejectsNonList) {
  auto s = parse(R"({"answer": "x"})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("JSON list"), std::string::npos);
}

TEST(MockScript, ObjectFormWithKeyRuleKeyedEntriesAndChoices) {
  auto s =
      parse(R"js({"comment": "landscape", "key": {"regex": "// marker: (\\w+)", "in": ["last_user", "last_assistant"],
                      "occurrence": "last"},
                     "entries": [
                       {"key": "a", "choices": [{"answer": "x", "weight": 3}, {"status": 500}]},
                       {"key": ["b", "c"], "times": 2, "answer": "y"},
                       {"match": "start", "choices": [{"answer": "z", "usage": {"input": 5}}]}]})js");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->key.has_value());
  EXPECT_EQ(s->key->regex_source, "// marker: (\\w+)");
  EXPECT_EQ(s->key->places, (std::vector<KeyPlace>{KeyPlace::last_user, KeyPlace::last_assistant}));
  EXPECT_TRUE(s->key->last_occurrence);
  ASSERT_EQ(s->entries.size(), 3u);
  EXPECT_EQ(s->entries[0].keys, std::vector<std::string>{"a"});
  EXPECT_EQ(s->entries[0].times, -1);  // keyed entries answer whenever their key comes, like matched ones
  ASSERT_EQ(s->entries[0].choices.size(), 2u);
  EXPECT_EQ(s->entries[0].choices[0].weight, 3);
  EXPECT_EQ(s->entries[0].choices[0].reply.answer, "x");
  EXPECT_EQ(s->entries[0].choices[1].weight, 1);
  EXPECT_EQ(s->entries[0].choices[1].reply.status, 500);
  EXPECT_EQ(s->entries[1].keys, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(s->entries[1].times, 2);
  EXPECT_EQ(*s->entries[2].choices[0].reply.usage.input, 5);
}

TEST(MockScript, ReportsKeyAndChoiceProblems) {
  auto s = parse(R"({"key": {"regex": "(", "in": ["nowhere"], "occurrence": "middle", "flags": "i"},
                     "entries": [
                       {"key": "a", "answer": "x", "choices": [{"answer": "y"}]},
                       {"key": [], "choices": []},
                       {"choices": [{"match": "m", "weight": 0, "answer": 1}, 7]},
                       {"weight": 2, "answer": "w"},
                       {"key": 5, "answer": "k"}],
                     "extra": true})");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  for (const char* expected :
       {"key.regex: invalid regular expression", "key.in: must be last_user", "key.occurrence: must be",
        "key.flags: unknown field", "extra: unknown field",
        "entry 0: answer: an entry with choices takes its reply from the chosen one", "entry 1: key: an empty list",
        "entry 1: choices: must be a non-empty list", "entry 2: choices[0]: match: selects an entry",
        "entry 2: choices[0]: weight: must be a positive", "entry 2: choices[0]: answer: must be a string",
        "entry 2: choices[1]: must be an object", "entry 3: weight: belongs to one of an entry's choices",
        "entry 4: key: must be a non-empty string"}) {
    EXPECT_NE(m.find(expected), std::string::npos) << "missing '" << expected << "' in:\n" << m;
  }
}

TEST(MockScript, KeyedEntryNeedsAKeyRule) {
  auto s = parse(R"([{"key": "a", "answer": "x"}])");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("entry 0: key: the script has no key rule"), std::string::npos) << s.error().message;
}

TEST(MockScript, BuiltInDemoScriptHasACudaKernel) {
  Script s = default_script();
  ASSERT_EQ(s.entries.size(), 1u);
  EXPECT_EQ(s.entries[0].times, -1);
  EXPECT_NE(s.entries[0].answer.find("```cuda"), std::string::npos);
  EXPECT_NE(s.entries[0].answer.find("kf_forward"), std::string::npos);
}

TEST(MockWire, SplitTextKeepsUtf8Whole) {
  std::string text =
      "a\xC3\xA9"
      "b\xE2\x82\xAC"
      "c";  // a é b € c
  auto pieces = split_text(text, 2);
  std::string joined;
  for (const auto& p : pieces) {
    joined += p;
    ASSERT_FALSE(p.empty());
    EXPECT_NE(static_cast<unsigned char>(p[0]) & 0xC0, 0x80) << "piece starts inside a UTF-8 sequence";
  }
  EXPECT_EQ(joined, text);
}

TEST(MockWire, SerializeVariants) {
  SseEvent ev{"message_stop", R"({"type":"message_stop"})"};
  EXPECT_EQ(serialize(ev, {}), "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  SseVariant v;
  v.line_ending = "\r\n";
  v.comments = true;
  v.multiline_data = true;
  EXPECT_EQ(serialize(ev, v),
            ": keep-alive\r\nevent: message_stop\r\ndata: {\r\ndata: \"type\":\"message_stop\"}\r\n\r\n");
}

TEST(MockWire, ThinkFormsInChatContent) {
  ResolvedReply r;
  r.answer = "A";
  r.reasoning = "R";
  r.reasoning_form = ReasoningForm::think_tags;
  EXPECT_EQ(chat_content_with_reasoning(r), "<think>R</think>\n\nA");
  r.reasoning_form = ReasoningForm::think_close_only;
  EXPECT_EQ(chat_content_with_reasoning(r), "R</think>\n\nA");
  r.reasoning_form = ReasoningForm::reasoning;
  EXPECT_EQ(chat_content_with_reasoning(r), "A");
}

TEST(MockScript, RealShapeFields) {
  auto s = parse(R"([{"status": 400, "error_reason": "API_KEY_INVALID", "quota_id": "q-PerDay", "retry_delay": 26,
                      "headers": {"x-a": "1"}},
                     {"answer": "a", "report_reasoning_tokens": false, "retry_delay": "0.5s"}])");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->entries[0].error_reason, "API_KEY_INVALID");
  EXPECT_EQ(s->entries[0].quota_id, "q-PerDay");
  EXPECT_EQ(s->entries[0].retry_delay, "26s");
  ASSERT_EQ(s->entries[0].headers.size(), 1u);
  EXPECT_EQ(s->entries[0].headers[0].first, "x-a");
  EXPECT_EQ(s->entries[1].report_reasoning_tokens, false);
  EXPECT_EQ(s->entries[1].retry_delay, "0.5s");
}

TEST(MockScript, RealShapeFieldProblemsAreReported) {
  auto s = parse(R"([{"headers": {"bad name": "v"}}, {"headers": "x"}, {"body_file": "/nonexistent/kforge-body.json"},
                     {"body_file": "/dev/null", "answer": "a"}])");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("entry 0: headers.bad name"), std::string::npos) << m;
  EXPECT_NE(m.find("entry 1: headers"), std::string::npos) << m;
  EXPECT_NE(m.find("entry 2: body_file: cannot read"), std::string::npos) << m;
  EXPECT_NE(m.find("entry 3: body_file"), std::string::npos) << m;
}

}  // namespace
}  // namespace kf::mock
