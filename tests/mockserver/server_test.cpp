// Integration tests: the scripted server over loopback, spoken to with a raw HTTP client.
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "mock_test_util.h"

namespace kf::mock::testing {
namespace {

using nlohmann::json;

constexpr const char* kReasoningReply = R"([{"answer": "The answer is 42.", "reasoning": "Six times seven.",
  "chunk_chars": 4, "usage": {"input": 100, "cached": 40, "output": 20, "reasoning": 30}, "times": "unlimited"}])";

std::string concat_chat_field(const std::vector<Sse>& events, const char* field) {
  std::string out;
  for (const auto& e : events) {
    if (e.data == "[DONE]") continue;
    auto j = json::parse(e.data);
    if (j["choices"].empty()) continue;
    const auto& d = j["choices"][0]["delta"];
    if (d.contains(field) && d[field].is_string()) out += d[field].get<std::string>();
  }
  return out;
}

TEST(MockServerChat, NonStreamingReplyHasReasoningAndExactUsage) {
  ScriptedServer server(kReasoningReply);
  auto res = server.post("/v1/chat/completions", chat_body("what?", false));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto j = json::parse(res->body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["model"], "test-model");
  EXPECT_EQ(j["choices"][0]["message"]["content"], "The answer is 42.");
  EXPECT_EQ(j["choices"][0]["message"]["reasoning_content"], "Six times seven.");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 100);
  EXPECT_EQ(j["usage"]["completion_tokens"], 50);
  EXPECT_EQ(j["usage"]["prompt_tokens_details"]["cached_tokens"], 40);
  EXPECT_EQ(j["usage"]["completion_tokens_details"]["reasoning_tokens"], 30);
}

TEST(MockServerChat, StreamingDeltasUsageChunkAndDone) {
  ScriptedServer server(kReasoningReply);
  auto res = server.post("/chat/completions", chat_body("what?", true));  // path without /v1 works too
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  auto events = parse_sse(res->body);
  ASSERT_GE(events.size(), 5u);
  EXPECT_EQ(events.back().data, "[DONE]");
  EXPECT_EQ(concat_chat_field(events, "reasoning_content"), "Six times seven.");
  EXPECT_EQ(concat_chat_field(events, "content"), "The answer is 42.");
  auto usage_chunk = json::parse(events[events.size() - 2].data);
  EXPECT_TRUE(usage_chunk["choices"].empty());
  EXPECT_EQ(usage_chunk["usage"]["completion_tokens"], 50);
  EXPECT_EQ(usage_chunk["usage"]["prompt_tokens_details"]["cached_tokens"], 40);
  auto finish = json::parse(events[events.size() - 3].data);
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "stop");

  auto no_usage = server.post("/v1/chat/completions", chat_body("what?", true, /*include_usage=*/false));
  ASSERT_TRUE(no_usage);
  for (const auto& e : parse_sse(no_usage->body)) {
    if (e.data == "[DONE]") continue;
    EXPECT_FALSE(json::parse(e.data).contains("usage")) << e.data;
  }
}

TEST(MockServerChat, ReasoningForms) {
  ScriptedServer server(R"([
    {"match": "field", "reasoning_form": "reasoning", "reasoning": "R1", "answer": "A1"},
    {"match": "tags", "reasoning_form": "think_tags", "reasoning": "R2", "answer": "A2", "chunk_chars": 3},
    {"match": "close", "reasoning_form": "think_close_only", "reasoning": "R3", "answer": "A3"}])");
  auto field = server.post("/v1/chat/completions", chat_body("field", true));
  ASSERT_TRUE(field);
  EXPECT_EQ(concat_chat_field(parse_sse(field->body), "reasoning"), "R1");
  auto tags = server.post("/v1/chat/completions", chat_body("tags", true));
  ASSERT_TRUE(tags);
  EXPECT_EQ(concat_chat_field(parse_sse(tags->body), "content"), "<think>R2</think>\n\nA2");
  auto close = server.post("/v1/chat/completions", chat_body("close", false));
  ASSERT_TRUE(close);
  EXPECT_EQ(json::parse(close->body)["choices"][0]["message"]["content"], "R3</think>\n\nA3");
}

TEST(MockServerResponses, StreamingEventsAndCompletedUsage) {
  ScriptedServer server(kReasoningReply);
  json body = {{"model", "o4-mini"}, {"instructions", "sys"}, {"input", "hello"}, {"stream", true}};
  auto res = server.post("/v1/responses", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto events = parse_sse(res->body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().event, "response.created");
  EXPECT_EQ(events.back().event, "response.completed");
  std::string text, summary;
  int64_t expected_seq = 0;
  for (const auto& e : events) {
    auto j = json::parse(e.data);
    EXPECT_EQ(j["type"], e.event);
    EXPECT_EQ(j["sequence_number"], expected_seq++);
    if (e.event == "response.output_text.delta") text += j["delta"].get<std::string>();
    if (e.event == "response.reasoning_summary_text.delta") summary += j["delta"].get<std::string>();
  }
  EXPECT_EQ(text, "The answer is 42.");
  EXPECT_EQ(summary, "Six times seven.");
  auto done = json::parse(events.back().data)["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["usage"]["input_tokens"], 100);
  EXPECT_EQ(done["usage"]["input_tokens_details"]["cached_tokens"], 40);
  EXPECT_EQ(done["usage"]["output_tokens"], 50);
  EXPECT_EQ(done["usage"]["output_tokens_details"]["reasoning_tokens"], 30);
  auto log = server.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["messages"][0]["role"], "system");
  EXPECT_EQ(log[0]["last_user_message"], "hello");
}

TEST(MockServerResponses, NonStreamingAndIncomplete) {
  ScriptedServer server(R"([{"answer": "partial", "reasoning": "r", "finish_reason": "length"}])");
  json body = {{"model", "o4-mini"}, {"input", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  auto res = server.post("/v1/responses", body);
  ASSERT_TRUE(res);
  auto j = json::parse(res->body);
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["incomplete_details"]["reason"], "max_output_tokens");
  ASSERT_EQ(j["output"].size(), 2u);
  EXPECT_EQ(j["output"][0]["type"], "reasoning");
  EXPECT_EQ(j["output"][0]["summary"][0]["text"], "r");
  EXPECT_EQ(j["output"][1]["content"][0]["text"], "partial");
}

json anthropic_body(bool stream) {
  return {
      {"model", "claude-x"},
      {"max_tokens", 100},
      {"system", "sys"},
      {"stream", stream},
      {"messages", json::array({{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "hi"}}})}}})}};
}

TEST(MockServerAnthropic, StreamingThinkingRedactedAndText) {
  ScriptedServer server(R"([{"answer": "Final.", "reasoning": "Let me think.", "redacted_thinking": "opaque",
     "thinking_signature": "sig123", "usage": {"input": 100, "cached": 40, "output": 20, "reasoning": 30},
     "times": "unlimited"}])");
  auto res = server.post("/v1/messages", anthropic_body(true));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto events = parse_sse(res->body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().event, "message_start");
  EXPECT_EQ(events.back().event, "message_stop");
  auto start = json::parse(events.front().data);
  EXPECT_EQ(start["message"]["usage"]["input_tokens"], 60);
  EXPECT_EQ(start["message"]["usage"]["cache_read_input_tokens"], 40);
  std::string thinking, text, signature;
  std::vector<std::string> block_types;
  bool saw_ping = false;
  json message_delta;
  for (const auto& e : events) {
    auto j = json::parse(e.data);
    EXPECT_EQ(j["type"], e.event);
    if (e.event == "ping") saw_ping = true;
    if (e.event == "content_block_start") block_types.push_back(j["content_block"]["type"]);
    if (e.event == "content_block_delta") {
      const auto& d = j["delta"];
      if (d["type"] == "thinking_delta") thinking += d["thinking"].get<std::string>();
      if (d["type"] == "signature_delta") signature += d["signature"].get<std::string>();
      if (d["type"] == "text_delta") text += d["text"].get<std::string>();
    }
    if (e.event == "message_delta") message_delta = j;
  }
  EXPECT_TRUE(saw_ping);
  EXPECT_EQ(block_types, (std::vector<std::string>{"thinking", "redacted_thinking", "text"}));
  EXPECT_EQ(thinking, "Let me think.");
  EXPECT_EQ(signature, "sig123");
  EXPECT_EQ(text, "Final.");
  EXPECT_EQ(message_delta["delta"]["stop_reason"], "end_turn");
  EXPECT_EQ(message_delta["usage"]["output_tokens"], 50);

  auto whole = server.post("/v1/messages", anthropic_body(false));
  ASSERT_TRUE(whole);
  auto j = json::parse(whole->body);
  ASSERT_EQ(j["content"].size(), 3u);
  EXPECT_EQ(j["content"][0]["thinking"], "Let me think.");
  EXPECT_EQ(j["content"][1]["data"], "opaque");
  EXPECT_EQ(j["content"][2]["text"], "Final.");
  EXPECT_EQ(j["usage"]["output_tokens"], 50);
  EXPECT_EQ(server.log()[0]["messages"][0]["content"], "sys");
}

json gemini_body() {
  return {{"systemInstruction", {{"parts", json::array({{{"text", "sys"}}})}}},
          {"contents", json::array({{{"role", "user"}, {"parts", json::array({{{"text", "hi"}}})}}})}};
}

TEST(MockServerGemini, StreamingThoughtPartsAndFinalUsage) {
  ScriptedServer server(R"([{"answer": "Answer here.", "reasoning": "Thought here.", "chunk_chars": 5,
     "usage": {"input": 100, "cached": 40, "output": 20, "reasoning": 30}, "times": "unlimited"}])");
  auto res = server.post("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", gemini_body());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto events = parse_sse(res->body);
  ASSERT_GE(events.size(), 2u);
  std::string thought, answer;
  for (size_t i = 0; i < events.size(); ++i) {
    auto j = json::parse(events[i].data);
    const auto& cand = j["candidates"][0];
    EXPECT_EQ(cand.contains("finishReason"), i + 1 == events.size());
    for (const auto& part : cand["content"]["parts"]) {
      (part.value("thought", false) ? thought : answer) += part["text"].get<std::string>();
    }
  }
  EXPECT_EQ(thought, "Thought here.");
  EXPECT_EQ(answer, "Answer here.");
  auto last = json::parse(events.back().data);
  EXPECT_EQ(last["candidates"][0]["finishReason"], "STOP");
  EXPECT_EQ(last["usageMetadata"]["promptTokenCount"], 100);
  EXPECT_EQ(last["usageMetadata"]["candidatesTokenCount"], 20);
  EXPECT_EQ(last["usageMetadata"]["thoughtsTokenCount"], 30);
  EXPECT_EQ(last["usageMetadata"]["cachedContentTokenCount"], 40);

  auto whole = server.post("/v1beta/models/gemini-2.5-pro:generateContent", gemini_body());
  ASSERT_TRUE(whole);
  auto j = json::parse(whole->body);
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][0]["thought"], true);
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][1]["text"], "Answer here.");
  auto log = server.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["model"], "gemini-2.5-pro");
  EXPECT_EQ(log[0]["stream"], true);
  EXPECT_EQ(log[1]["stream"], false);
  EXPECT_EQ(log[0]["messages"][0]["role"], "system");
}

TEST(MockServerScript, MatchedEntriesAnyTimePlainEntriesInOrderThenExhausted) {
  ScriptedServer server(R"([
    {"answer": "first"},
    {"match": "special", "answer": "matched"},
    {"answer": "second"},
    {"api": "anthropic", "answer": "only for anthropic"}])");
  auto answer = [&](const std::string& prompt) {
    auto res = server.post("/v1/chat/completions", chat_body(prompt, false));
    EXPECT_TRUE(res);
    if (!res) return std::string("<no response>");
    if (res->status != 200) return "HTTP " + std::to_string(res->status) + " " + res->body;
    return json::parse(res->body)["choices"][0]["message"]["content"].get<std::string>();
  };
  EXPECT_EQ(answer("a special one"), "matched");
  EXPECT_EQ(answer("plain"), "first");
  EXPECT_EQ(answer("special again"), "matched");
  EXPECT_EQ(answer("plain"), "second");
  std::string exhausted = answer("plain");
  EXPECT_NE(exhausted.find("HTTP 500"), std::string::npos);
  EXPECT_NE(exhausted.find("mock_script_exhausted"), std::string::npos);
  EXPECT_NE(exhausted.find("exhausted"), std::string::npos);
  auto log = server.log();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[0]["entry"], 1);
  EXPECT_EQ(log[1]["entry"], 0);
  EXPECT_EQ(log[3]["entry"], 2);
  EXPECT_TRUE(log[4]["entry"].is_null());
  EXPECT_EQ(log[4]["outcome"], "exhausted");
}

TEST(MockServerFaults, StatusRetryHeadersAndErrorBodies) {
  ScriptedServer server(R"([
    {"status": 429, "retry_after": 2, "retry_after_ms": 1500, "x_should_retry": true},
    {"status": 429, "error_type": "insufficient_quota", "error_message": "You exceeded your current quota"},
    {"status": 529, "api": "anthropic"},
    {"status": 429, "api": "gemini", "retry_after": "Wed, 21 Oct 2026 07:28:00 GMT"}])");
  auto rate = server.post("/v1/chat/completions", chat_body("x", false));
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->status, 429);
  EXPECT_EQ(rate->get_header_value("retry-after"), "2");
  EXPECT_EQ(rate->get_header_value("retry-after-ms"), "1500");
  EXPECT_EQ(rate->get_header_value("x-should-retry"), "true");
  EXPECT_EQ(json::parse(rate->body)["error"]["code"], "rate_limit_exceeded");

  auto quota = server.post("/v1/chat/completions", chat_body("x", true));
  ASSERT_TRUE(quota);
  EXPECT_EQ(quota->status, 429);
  auto q = json::parse(quota->body)["error"];
  EXPECT_EQ(q["type"], "insufficient_quota");
  EXPECT_EQ(q["code"], "insufficient_quota");
  EXPECT_EQ(q["message"], "You exceeded your current quota");

  auto overloaded = server.post("/v1/messages", anthropic_body(true));
  ASSERT_TRUE(overloaded);
  EXPECT_EQ(overloaded->status, 529);
  auto o = json::parse(overloaded->body);
  EXPECT_EQ(o["type"], "error");
  EXPECT_EQ(o["error"]["type"], "overloaded_error");

  auto gem = server.post("/v1beta/models/g:generateContent", gemini_body());
  ASSERT_TRUE(gem);
  EXPECT_EQ(gem->status, 429);
  EXPECT_EQ(gem->get_header_value("retry-after"), "Wed, 21 Oct 2026 07:28:00 GMT");
  EXPECT_EQ(json::parse(gem->body)["error"]["status"], "RESOURCE_EXHAUSTED");
}

TEST(MockServerFaults, StreamCutEndsWithoutEndMarker) {
  ScriptedServer server(R"([
    {"answer": "a fairly long answer that is cut", "chunk_chars": 4, "stream_cut_after": {"events": 3}},
    {"answer": "a fairly long answer that is cut", "stream_cut_after": {"bytes": 50}},
    {"answer": "x", "api": "anthropic", "stream_cut_after": 4}])");
  auto by_events = server.post("/v1/chat/completions", chat_body("x", true));
  ASSERT_TRUE(by_events);
  auto events = parse_sse(by_events->body);
  EXPECT_EQ(events.size(), 3u);
  for (const auto& e : events) EXPECT_NE(e.data, "[DONE]");
  auto by_bytes = server.post("/v1/chat/completions", chat_body("x", true));
  ASSERT_TRUE(by_bytes);
  EXPECT_EQ(by_bytes->body.size(), 50u);
  auto anthropic = server.post("/v1/messages", anthropic_body(true));
  ASSERT_TRUE(anthropic);
  for (const auto& e : parse_sse(anthropic->body)) EXPECT_NE(e.event, "message_stop");
}

TEST(MockServerFaults, AbortedConnectionIsAClientError) {
  ScriptedServer server(R"([
    {"answer": "dropped mid-way", "stream_cut_after": {"events": 2, "abort": true}},
    {"answer": "dropped body", "stream_cut_after": {"bytes": 10, "abort": true}}])");
  auto streamed = server.post("/v1/chat/completions", chat_body("x", true));
  EXPECT_FALSE(streamed) << "an aborted chunked stream must not look like a complete response";
  auto whole = server.post("/v1/chat/completions", chat_body("x", false));
  EXPECT_FALSE(whole) << "a body shorter than its Content-Length must not look complete";
  EXPECT_EQ(server.log().size(), 2u);
}

TEST(MockServerFaults, MalformedJsonAndErrorEventMidStream) {
  ScriptedServer server(R"([
    {"answer": "hello world", "malformed_json": true},
    {"answer": "hello world", "malformed_json": true},
    {"answer": "hello world", "api": "anthropic", "error_event_mid_stream": {"after_events": 2}},
    {"answer": "hello world", "api": "openai-responses", "error_event_mid_stream": true}])");
  auto stream = server.post("/v1/chat/completions", chat_body("x", true));
  ASSERT_TRUE(stream);
  EXPECT_EQ(stream->status, 200);
  int bad = 0;
  for (const auto& e : parse_sse(stream->body)) {
    if (e.data == "[DONE]") continue;
    if (json::accept(e.data) == false) ++bad;
  }
  EXPECT_EQ(bad, 1);
  auto whole = server.post("/v1/chat/completions", chat_body("x", false));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 200);
  EXPECT_FALSE(json::accept(whole->body));

  auto anthropic = server.post("/v1/messages", anthropic_body(true));
  ASSERT_TRUE(anthropic);
  auto events = parse_sse(anthropic->body);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].event, "error");
  EXPECT_EQ(json::parse(events[2].data)["error"]["type"], "overloaded_error");

  auto responses = server.post("/v1/responses", {{"model", "m"}, {"input", "x"}, {"stream", true}});
  ASSERT_TRUE(responses);
  auto revents = parse_sse(responses->body);
  ASSERT_EQ(revents.size(), 2u);
  EXPECT_EQ(revents[1].event, "error");
  EXPECT_EQ(json::parse(revents[1].data)["type"], "error");
}

TEST(MockServerFaults, DelayHoldsTheResponseAtLeastThatLong) {
  ScriptedServer server(R"([{"answer": "late", "delay_s": 0.3}])");
  auto t0 = std::chrono::steady_clock::now();
  auto res = server.post("/v1/chat/completions", chat_body("x", false));
  auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_GE(elapsed, 0.3);  // a lower bound only: never flaky on a slow machine
}

TEST(MockServerSse, FramingVariants) {
  ScriptedServer server(
      R"([{"answer": "hi", "sse": {"line_ending": "crlf", "comments": true, "multiline_data": true}}])");
  auto res = server.post("/v1/chat/completions", chat_body("x", true));
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find(": keep-alive\r\n"), std::string::npos);
  EXPECT_NE(res->body.find("data: {\r\ndata: "), std::string::npos);
  auto events = parse_sse(res->body);
  EXPECT_EQ(concat_chat_field(events, "content"), "hi");
}

TEST(MockServerLog, RecordsRequestsWithoutAuthValues) {
  ScriptedServer server(R"([{"answer": "ok", "times": "unlimited"}])");
  const std::string key = "sk-planted-secret-0123456789abcdef";
  auto res = server.post("/v1/chat/completions", chat_body("hello there", true),
                         {{"Authorization", "Bearer " + key}, {"X-Api-Key", key}, {"X-Trace", "t1"}});
  ASSERT_TRUE(res);
  auto gem = server.post("/v1beta/models/g:generateContent?key=" + key, gemini_body());
  ASSERT_TRUE(gem);
  std::ifstream in(server.log_path());
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.find(key), std::string::npos) << "the key leaked into the request log";
  auto log = server.log();
  ASSERT_EQ(log.size(), 2u);
  const auto& r = log[0];
  EXPECT_EQ(r["seq"], 1);
  EXPECT_EQ(r["api"], "openai-chat");
  EXPECT_EQ(r["model"], "test-model");
  EXPECT_EQ(r["stream"], true);
  EXPECT_EQ(r["auth_present"], true);
  EXPECT_EQ(r["headers"]["authorization"], "[present]");
  EXPECT_EQ(r["headers"]["x-api-key"], "[present]");
  EXPECT_EQ(r["headers"]["x-trace"], "t1");
  EXPECT_EQ(r["messages"].size(), 2u);
  EXPECT_EQ(r["messages"][0]["content"], "be brief");
  EXPECT_EQ(r["last_user_message"], "hello there");
  EXPECT_EQ(r["outcome"], "reply");
  const std::string time = r["time"];
  ASSERT_EQ(time.size(), 24u) << time;  // 2026-12-02T13:45:01.123Z
  EXPECT_EQ(time[19], '.');
  EXPECT_GT(r["t_ms"].get<int64_t>(), 0);
  EXPECT_EQ(log[1]["auth_present"], true);
  EXPECT_EQ(log[1]["query"]["key"], "[present]");
}

TEST(MockServerHttp, UnknownPathAndBadBody) {
  ScriptedServer server(R"([{"answer": "ok"}])");
  httplib::Client client("127.0.0.1", server.port());
  auto missing = client.Post("/v2/nothing", "{}", "application/json");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("/v1/chat/completions"), std::string::npos);
  auto bad = client.Post("/v1/chat/completions", "not json", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("not valid JSON"), std::string::npos);
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  // The bad request consumed no entry.
  auto ok = server.post("/v1/chat/completions", chat_body("x", false));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST(MockServerHttp, ServesTwoHundredConcurrentConnections) {
  ScriptedServer server(R"([{"answer": "ok", "delay_s": 0.2, "times": "unlimited"}])");
  constexpr int kClients = 200;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&] {
      auto res = server.post("/v1/chat/completions", chat_body("x", false));
      if (res && res->status == 200) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kClients);
  EXPECT_EQ(server.log().size(), static_cast<size_t>(kClients));
}

// The real shapes (docs/providers.md's classification table): Gemini error details, arbitrary headers,
// Anthropic thinking_tokens, a recorded body sent verbatim.
TEST(MockServerRealShapes, GeminiErrorDetailsAndHeaders) {
  ScriptedServer server(
      R"([{"status": 429, "error_type": "RESOURCE_EXHAUSTED", "error_message": "You exceeded your current quota",
                             "quota_id": "GenerateContentInputTokensPerModelPerMinute-FreeTier", "retry_delay": "26s",
                             "headers": {"x-test-header": "v1"}},
                            {"status": 400, "error_type": "INVALID_ARGUMENT", "error_reason": "API_KEY_INVALID",
                             "error_message": "API key not valid. Please pass a valid API key."}])");
  auto quota = server.post("/v1beta/models/g:generateContent", gemini_body());
  ASSERT_TRUE(quota);
  EXPECT_EQ(quota->status, 429);
  EXPECT_EQ(quota->get_header_value("x-test-header"), "v1");
  auto q = json::parse(quota->body)["error"];
  EXPECT_EQ(q["status"], "RESOURCE_EXHAUSTED");
  ASSERT_EQ(q["details"].size(), 2u);
  EXPECT_EQ(q["details"][0]["@type"], "type.googleapis.com/google.rpc.QuotaFailure");
  EXPECT_EQ(q["details"][0]["violations"][0]["quotaId"], "GenerateContentInputTokensPerModelPerMinute-FreeTier");
  EXPECT_EQ(q["details"][1]["@type"], "type.googleapis.com/google.rpc.RetryInfo");
  EXPECT_EQ(q["details"][1]["retryDelay"], "26s");
  auto key = server.post("/v1beta/models/g:generateContent", gemini_body());
  ASSERT_TRUE(key);
  EXPECT_EQ(key->status, 400);
  auto k = json::parse(key->body)["error"];
  EXPECT_EQ(k["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  EXPECT_EQ(k["details"][0]["reason"], "API_KEY_INVALID");
}

TEST(MockServerRealShapes, AnthropicThinkingTokensWhenAsked) {
  ScriptedServer server(
      R"([{"answer": "a", "report_reasoning_tokens": true, "usage": {"input": 5, "output": 53, "reasoning": 67},
                             "times": "unlimited"}])");
  auto whole = server.post("/v1/messages", anthropic_body(false));
  ASSERT_TRUE(whole);
  auto u = json::parse(whole->body)["usage"];
  EXPECT_EQ(u["output_tokens"], 120);
  EXPECT_EQ(u["output_tokens_details"]["thinking_tokens"], 67);
  auto streamed = server.post("/v1/messages", anthropic_body(true));
  ASSERT_TRUE(streamed);
  bool seen = false;
  for (const auto& e : parse_sse(streamed->body)) {
    auto j = json::parse(e.data);
    if (j["type"] == "message_delta") {
      EXPECT_EQ(j["usage"]["output_tokens"], 120);
      EXPECT_EQ(j["usage"]["output_tokens_details"]["thinking_tokens"], 67);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

TEST(MockServerRealShapes, UnreportedReasoningOmitsTheDetails) {
  ScriptedServer server(
      R"([{"answer": "a", "reasoning": "r", "report_reasoning_tokens": false, "usage": {"output": 3, "reasoning": 4}}])");
  auto res = server.post("/v1/chat/completions", chat_body("q", false));
  ASSERT_TRUE(res);
  auto u = json::parse(res->body)["usage"];
  EXPECT_EQ(u["completion_tokens"], 7);
  EXPECT_FALSE(u.contains("completion_tokens_details"));
}

TEST(MockServerRealShapes, BodyFileIsSentVerbatim) {
  const std::string file = temp_path("recorded-body.sse");
  const std::string recorded = ": keep-alive\r\n\r\ndata: {\"x\": 1}       \r\n\r\n";
  std::ofstream(file, std::ios::binary) << recorded;
  ScriptedServer server(
      json::array({{{"body_file", file}, {"headers", {{"retry-after", "3"}}}, {"status", 503}}}).dump());
  auto res = server.post("/v1/chat/completions", chat_body("q", true));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(res->body, recorded);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_EQ(res->get_header_value("retry-after"), "3");
  EXPECT_EQ(server.log().at(0)["status"], 503);
}

}  // namespace
}  // namespace kf::mock::testing
