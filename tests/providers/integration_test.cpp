// The providers against the real `kforge mock-server` over loopback: every API kind, streaming and
// not, replies, reasoning forms, faults, retries, usage/cost and key hygiene.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <thread>

#include "core/secrets.h"
#include "providers/error_classifier.h"
#include "providers/http_provider.h"
#include "providers/provider.h"
#include "tests/support/mock_server.h"

namespace kf::providers {
namespace {

using nlohmann::json;
using testing::MockServerProcess;

constexpr const char* kKeyEnv = "KFORGE_ITEST_API_KEY";
constexpr const char* kPlantedKey = "sk-itest-PLANTED-0123456789abcdefSECRET";

struct Case {
  ProviderKind kind;
  bool stream;
};
// Names the case in gtest's output instead of dumping the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << to_string(c.kind) << (c.stream ? " streaming" : " plain"); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = to_string(info.param.kind);
  for (auto& c : name)
    if (c == '-') c = '_';
  return name + (info.param.stream ? "_stream" : "_plain");
}

// The API name the mock server logs for a provider kind.
std::string mock_api(ProviderKind kind) {
  return kind == ProviderKind::openai_compatible ? "openai-chat" : to_string(kind);
}

class ProviderIntegration : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() { setenv(kKeyEnv, kPlantedKey, 1); }

  void SetUp() override { dir_ = testing::make_temp_dir("kforge-providers-itest"); }

  void TearDown() override {
    if (server_) server_->stop();
    // No key anywhere the test can find: server output and log, raw exchange logs, error messages.
    for (const auto& [path, text] : testing::read_tree(dir_)) {
      if (path == dir_ + "/script.json") continue;  // the test's own input
      EXPECT_EQ(text.find(kPlantedKey), std::string::npos) << "the API key leaked into " << path;
    }
    for (const auto& message : messages_seen_)
      EXPECT_EQ(message.find(kPlantedKey), std::string::npos) << "the API key leaked into: " << message;
    std::error_code ec;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ec);
  }

  void serve(const json& script) {
    server_ = MockServerProcess::start(script, dir_);
    ASSERT_TRUE(server_);
  }

  ModelConfig config() const {
    const Case c = GetParam();
    ModelConfig m;
    m.name = "itest-" + to_string(c.kind);
    m.provider = c.kind;
    m.base_url = server_->base_url() + (c.kind == ProviderKind::gemini ? "/v1beta" : "/v1");
    m.api_key_env = kKeyEnv;
    m.model = "itest-model";
    m.generation.stream = c.stream;
    m.generation.max_output_tokens = 2000;
    if (c.kind == ProviderKind::anthropic || c.kind == ProviderKind::gemini)
      m.generation.thinking_budget_tokens = 1024;
    else
      m.generation.reasoning_effort = "high";
    m.timeouts = {2, 5, 20};
    m.retry = {3, 0.02, 0.1, 2, 0.25};
    m.rate_limits.max_concurrent = 4;
    m.prices = {2.0, 8.0, 10.0, 0.5};
    // Anthropic reports thinking inside output_tokens and bills it as output.
    if (c.kind == ProviderKind::anthropic) m.prices.reasoning = m.prices.output;
    m.raw_log_dir = dir_ + "/raw";
    return m;
  }

  ProviderResult<Reply> ask(const ModelConfig& m, const std::string& prompt = "write a relu kernel") {
    auto provider = make_provider(m);
    EXPECT_TRUE(provider.ok()) << (provider.ok() ? "" : provider.error().message);
    if (!provider.ok()) {
      ProviderError none;
      none.kind = ProviderErrorKind::bad_request;
      none.message = "no provider";
      return none;
    }
    auto r = (*provider)->complete({{"system", "You write CUDA."}, {"user", prompt}});
    if (auto* e = std::get_if<ProviderError>(&r)) messages_seen_.push_back(e->message);
    return r;
  }
  ProviderResult<Reply> ask() { return ask(config()); }

  static const Reply& reply_of(const ProviderResult<Reply>& r) {
    static const Reply empty;
    if (const auto* reply = std::get_if<Reply>(&r)) return *reply;
    ADD_FAILURE() << "expected a reply, got " << to_string(std::get<ProviderError>(r).kind) << ": "
                  << std::get<ProviderError>(r).message;
    return empty;
  }
  static ProviderError error_of(const ProviderResult<Reply>& r) {
    if (const auto* e = std::get_if<ProviderError>(&r)) return *e;
    ADD_FAILURE() << "expected an error, got the answer: " << std::get<Reply>(r).answer;
    ProviderError none;
    none.kind = ProviderErrorKind::bad_request;
    return none;
  }

  std::string dir_;
  std::unique_ptr<MockServerProcess> server_;
  std::vector<std::string> messages_seen_;
};

TEST_P(ProviderIntegration, PlainReplyWithExactUsageAndCost) {
  serve(json::array({{{"answer", "The kernel is ```cuda\n__global__ void k(){}\n```"},
                      {"reasoning", "I should use one thread per element."},
                      {"model", "served-model-1"},
                      {"chunk_chars", 5},
                      {"usage", {{"input", 1000}, {"cached", 400}, {"output", 200}, {"reasoning", 300}}}}}));
  const auto r = ask();
  const Reply reply = reply_of(r);
  EXPECT_EQ(reply.answer, "The kernel is ```cuda\n__global__ void k(){}\n```");
  EXPECT_EQ(reply.reasoning, "I should use one thread per element.");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.model, "served-model-1");
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_EQ(reply.usage.input_tokens, 1000);
  EXPECT_EQ(reply.usage.cached_input_tokens, 400);
  const auto m = config();
  if (GetParam().kind == ProviderKind::anthropic) {
    // One output figure on the wire; the split is estimated, the total and the cost are exact.
    EXPECT_EQ(reply.usage.output_tokens + reply.usage.reasoning_tokens, 500);
    EXPECT_GT(reply.usage.reasoning_tokens, 0);
  } else {
    EXPECT_EQ(reply.usage.output_tokens, 200);
    EXPECT_EQ(reply.usage.reasoning_tokens, 300);
  }
  const double expected =
      (600 * m.prices.input + 400 * m.prices.cached_input + 200 * m.prices.output + 300 * m.prices.reasoning) / 1e6;
  EXPECT_NEAR(reply.cost_usd, expected, 1e-12);

  const auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["api"], mock_api(GetParam().kind));
  EXPECT_EQ(requests[0]["stream"], GetParam().stream);
  EXPECT_EQ(requests[0]["model"], "itest-model");
  EXPECT_EQ(requests[0]["auth_present"], true);
  EXPECT_EQ(requests[0]["last_user_message"], "write a relu kernel");
  ASSERT_GE(requests[0]["messages"].size(), 2u);
  EXPECT_EQ(requests[0]["messages"][0]["role"], "system");
  EXPECT_EQ(requests[0]["messages"][0]["content"], "You write CUDA.");
  EXPECT_EQ(testing::read_tree(dir_ + "/raw").size(), 1u) << "one raw exchange log per call";
}

TEST_P(ProviderIntegration, RequestCarriesTheGenerationSettings) {
  serve(json::array({{{"answer", "ok"}}}));
  reply_of(ask());
  const json body = server_->requests().at(0)["body"];
  switch (GetParam().kind) {
    case ProviderKind::openai_chat:
      EXPECT_EQ(body["max_completion_tokens"], 2000);
      EXPECT_EQ(body["reasoning_effort"], "high");
      if (GetParam().stream) {
        EXPECT_EQ(body["stream_options"]["include_usage"], true);
      }
      break;
    case ProviderKind::openai_compatible: EXPECT_EQ(body["max_tokens"], 2000); break;
    case ProviderKind::openai_responses:
      EXPECT_EQ(body["max_output_tokens"], 2000);
      EXPECT_EQ(body["reasoning"]["effort"], "high");
      EXPECT_EQ(body["reasoning"]["summary"], "auto");
      EXPECT_EQ(body["instructions"], "You write CUDA.");
      break;
    case ProviderKind::anthropic:
      EXPECT_EQ(body["max_tokens"], 2000);
      EXPECT_EQ(body["thinking"]["type"], "enabled");
      EXPECT_EQ(body["thinking"]["budget_tokens"], 1024);
      EXPECT_EQ(body["system"], "You write CUDA.");
      break;
    case ProviderKind::gemini:
      EXPECT_EQ(body["generationConfig"]["maxOutputTokens"], 2000);
      EXPECT_EQ(body["generationConfig"]["thinkingConfig"]["thinkingBudget"], 1024);
      EXPECT_EQ(body["generationConfig"]["thinkingConfig"]["includeThoughts"], true);
      break;
  }
}

TEST_P(ProviderIntegration, SseFramingVariantsParseTheSame) {
  if (!GetParam().stream) GTEST_SKIP() << "framing only exists in streams";
  json script = json::array();
  for (const char* eol : {"lf", "crlf", "cr"})
    script.push_back({{"answer", "same answer"},
                      {"reasoning", "same reasoning"},
                      {"chunk_chars", 3},
                      {"sse", {{"line_ending", eol}, {"comments", true}, {"multiline_data", true}}}});
  serve(script);
  for (int i = 0; i < 3; ++i) {
    const Reply reply = reply_of(ask());
    EXPECT_EQ(reply.answer, "same answer") << i;
    EXPECT_EQ(reply.reasoning, "same reasoning") << i;
  }
}

TEST_P(ProviderIntegration, RetryHonoursRetryAfter) {
  serve(json::array(
      {{{"status", 429}, {"retry_after", 0.3}}, {{"status", 503}, {"retry_after_ms", 200}}, {{"answer", "finally"}}}));
  const Reply reply = reply_of(ask());
  EXPECT_EQ(reply.answer, "finally");
  EXPECT_EQ(reply.attempts, 3);
  const auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 3u);
  // Backoff alone would wait at most 0.1 s; the gaps prove the server's wait was used.
  EXPECT_GE(requests[1]["t_ms"].get<int64_t>() - requests[0]["t_ms"].get<int64_t>(), 300);
  EXPECT_GE(requests[2]["t_ms"].get<int64_t>() - requests[1]["t_ms"].get<int64_t>(), 200);
}

TEST_P(ProviderIntegration, RetryAfterAsHttpDateIsHonoured) {
  // A date in the past means "now": the retry happens promptly and succeeds.
  serve(json::array({{{"status", 503}, {"retry_after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, {{"answer", "ok"}}}));
  EXPECT_EQ(reply_of(ask()).attempts, 2);
}

TEST_P(ProviderIntegration, RetriesServerErrorsAnd529) {
  serve(json::array({{{"status", 500}}, {{"status", 529}, {"x_should_retry", true}}, {{"answer", "ok"}}}));
  EXPECT_EQ(reply_of(ask()).attempts, 3);
}

TEST_P(ProviderIntegration, ShouldRetryFalseForbidsTheRetry) {
  serve(json::array({{{"status", 503}, {"x_should_retry", false}}, {{"answer", "not reached"}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::server);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_EQ(server_->requests().size(), 1u);
}

TEST_P(ProviderIntegration, ShouldRetryTrueForcesARetryOfA400) {
  serve(json::array({{{"status", 400}, {"x_should_retry", true}}, {{"answer", "ok"}}}));
  EXPECT_EQ(reply_of(ask()).attempts, 2);
}

TEST_P(ProviderIntegration, GivesUpAfterMaxAttempts) {
  serve(json::array({{{"status", 429}, {"times", "unlimited"}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::rate_limit);
  EXPECT_EQ(e.attempts, 3);
  EXPECT_EQ(server_->requests().size(), 3u);
  EXPECT_NE(e.message.find("rate_limits"), std::string::npos) << "says what to change: " << e.message;
}

TEST_P(ProviderIntegration, NonRetryableErrorsAreNotRetried) {
  const std::vector<std::pair<json, ProviderErrorKind>> faults = {
      {{{"status", 400}}, ProviderErrorKind::bad_request},
      {{{"status", 401}}, ProviderErrorKind::auth},
      {{{"status", 403}}, ProviderErrorKind::auth},
      {{{"status", 404}}, ProviderErrorKind::bad_request},
      {{{"status", 429},
        {"error_type", "insufficient_quota"},
        {"error_message", "You exceeded your current quota, please check your plan and billing details."}},
       ProviderErrorKind::quota},
  };
  json script = json::array();
  for (const auto& [fault, kind] : faults) {
    json entry = fault;
    entry["match"] = "^fault " + std::to_string(script.size()) + "$";
    script.push_back(entry);
  }
  script.push_back({{"answer", "a retry would have reached me"}, {"times", "unlimited"}});
  serve(script);
  for (size_t i = 0; i < faults.size(); ++i) {
    const auto e = error_of(ask(config(), "fault " + std::to_string(i)));
    EXPECT_EQ(e.kind, faults[i].second) << faults[i].first.dump() << ": " << e.message;
    EXPECT_EQ(e.attempts, 1) << faults[i].first.dump();
    EXPECT_EQ(e.http_status, faults[i].first["status"].get<int>());
  }
  EXPECT_EQ(server_->requests().size(), faults.size()) << "no request was sent twice";
}

TEST_P(ProviderIntegration, KeyEchoedInAnErrorIsRedacted) {
  serve(json::array({{{"status", 401}, {"error_message", std::string("Incorrect API key provided: ") + kPlantedKey}},
                     {{"answer", std::string("your key is ") + kPlantedKey}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::auth);
  EXPECT_NE(e.message.find("[REDACTED]"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(kKeyEnv), std::string::npos) << "names the variable to fix: " << e.message;
  const Reply reply = reply_of(ask());
  EXPECT_EQ(reply.answer, "your key is [REDACTED]");
}

TEST_P(ProviderIntegration, DelayWithinTheTimeoutsIsFine) {
  serve(json::array({{{"answer", "slow but fine"}, {"delay_s", 0.3}, {"event_delay_s", 0.02}}}));
  EXPECT_EQ(reply_of(ask()).answer, "slow but fine");
}

TEST_P(ProviderIntegration, SilentServerTimesOut) {
  serve(json::array({{{"answer", "too slow"}, {"delay_s", 5}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  m.timeouts.idle_s = 0.3;
  m.timeouts.total_s = 1.0;  // non-streaming calls wait for the first byte up to the total timeout
  const auto e = error_of(ask(m));
  EXPECT_EQ(e.kind, ProviderErrorKind::network) << e.message;
}

TEST_P(ProviderIntegration, StalledStreamHitsTheIdleTimeout) {
  if (!GetParam().stream) GTEST_SKIP() << "idle time between events only exists in streams";
  serve(json::array({{{"answer", "a b c d e f g h"}, {"chunk_chars", 2}, {"event_delay_s", 3}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  m.timeouts.idle_s = 0.3;
  const auto e = error_of(ask(m));
  EXPECT_EQ(e.kind, ProviderErrorKind::network) << e.message;
  EXPECT_NE(e.message.find("idle"), std::string::npos) << e.message;
}

TEST_P(ProviderIntegration, CutStreamIsAnErrorNotAShortAnswer) {
  serve(json::array({{{"answer", "this answer is long enough to be cut in the middle"},
                      {"chunk_chars", 4},
                      {"stream_cut_after", {{"events", 3}}}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  const auto e = error_of(ask(m));
  if (GetParam().stream) {
    EXPECT_EQ(e.kind, ProviderErrorKind::truncated) << e.message;
  } else {
    // A cut JSON body cannot be told apart from a malformed one.
    EXPECT_TRUE(e.kind == ProviderErrorKind::truncated || e.kind == ProviderErrorKind::malformed) << e.message;
  }
}

TEST_P(ProviderIntegration, DroppedConnectionIsAnError) {
  serve(json::array({{{"answer", "this answer is long enough to be cut in the middle"},
                      {"chunk_chars", 4},
                      {"stream_cut_after", {{"bytes", 120}, {"abort", true}}}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  const auto e = error_of(ask(m));
  EXPECT_TRUE(e.kind == ProviderErrorKind::truncated || e.kind == ProviderErrorKind::malformed) << e.message;
}

TEST_P(ProviderIntegration, RetriedCutStreamRestartsTheRequest) {
  serve(json::array({{{"answer", "first attempt, never completed"},
                      {"chunk_chars", 4},
                      {"stream_cut_after", {{"bytes", 150}, {"abort", true}}}},
                     {{"answer", "second attempt"}}}));
  const Reply reply = reply_of(ask());
  EXPECT_EQ(reply.answer, "second attempt") << "nothing of the broken attempt is kept";
  EXPECT_EQ(reply.attempts, 2);
}

TEST_P(ProviderIntegration, MalformedJsonIsReported) {
  serve(json::array(
      {{{"answer", "broken payload here"}, {"reasoning", "and some reasoning"}, {"malformed_json", true}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  const auto e = error_of(ask(m));
  EXPECT_TRUE(e.kind == ProviderErrorKind::malformed || e.kind == ProviderErrorKind::truncated) << e.message;
  EXPECT_NE(e.message.find(to_string(GetParam().kind)), std::string::npos) << e.message;
}

TEST_P(ProviderIntegration, ErrorEventAfterHttp200IsAServerErrorAndRetried) {
  serve(json::array({{{"answer", "partial answer that will fail"},
                      {"chunk_chars", 4},
                      {"error_event_mid_stream", {{"after_events", 2}, {"type", "overloaded_error"}}}},
                     {{"answer", "recovered"}}}));
  auto m = config();
  m.retry.max_attempts = 1;
  const auto e = error_of(ask(m));
  EXPECT_EQ(e.kind, ProviderErrorKind::server) << e.message;
  m.retry.max_attempts = 2;
  const Reply reply = reply_of(ask(m));
  EXPECT_EQ(reply.answer, "recovered");
}

TEST_P(ProviderIntegration, QuotaErrorEventIsNotRetried) {
  serve(json::array(
      {{{"answer", "x y z"},
        {"error_event_mid_stream",
         {{"after_events", 1}, {"type", "insufficient_quota"}, {"message", "You exceeded your current quota"}}}},
       {{"answer", "not reached"}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::quota) << e.message;
  EXPECT_EQ(server_->requests().size(), 1u);
}

TEST_P(ProviderIntegration, LengthStopWithoutAnswerIsAnOutputLimitError) {
  serve(json::array({{{"answer", ""},
                      {"reasoning", "thinking and thinking"},
                      {"finish_reason", "length"},
                      {"usage", {{"input", 10}, {"output", 0}, {"reasoning", 2000}}}},
                     {{"answer", "half an ans"}, {"finish_reason", "length"}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::output_limit) << e.message;
  EXPECT_EQ(e.usage.input_tokens, 10) << "billed tokens are reported with the error";
  EXPECT_NE(e.message.find("max_output_tokens"), std::string::npos) << e.message;
  const Reply& partial = reply_of(ask());
  EXPECT_EQ(partial.answer, "half an ans");
  EXPECT_EQ(partial.finish_reason, "length");
}

TEST_P(ProviderIntegration, ContentFilterIsAnError) {
  serve(json::array({{{"answer", ""}, {"finish_reason", "content_filter"}}}));
  const auto e = error_of(ask());
  EXPECT_EQ(e.kind, ProviderErrorKind::content_filter) << e.message;
  EXPECT_EQ(server_->requests().size(), 1u);
}

TEST_P(ProviderIntegration, ConcurrentCallsShareOneProvider) {
  serve(json::array({{{"answer", "same"}, {"times", "unlimited"}, {"usage", {{"input", 5}, {"output", 1}}}}}));
  auto provider = make_provider(config());
  ASSERT_TRUE(provider.ok());
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 4; ++i) {
        auto r = (*provider)->complete({{"user", "hi"}});
        if (auto* reply = std::get_if<Reply>(&r); reply && reply->answer == "same") ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 24);
  EXPECT_EQ(server_->requests().size(), 24u);
}

// `kforge ask` end to end: its stdout/stderr and raw log never show the key, also when the server
// echoes it back in an error or an answer.
TEST_P(ProviderIntegration, KforgeAskNeverPrintsTheKey) {
  serve(json::array({{{"answer", std::string("echo: ") + kPlantedKey}, {"usage", {{"input", 7}, {"output", 3}}}},
                     {{"status", 401}, {"error_message", std::string("bad key ") + kPlantedKey}}}));
  const ModelConfig m = config();
  const json config_file = {{"name", m.name},
                            {"provider", to_string(m.provider)},
                            {"base_url", m.base_url},
                            {"api_key_env", kKeyEnv},
                            {"model", m.model},
                            {"generation", {{"max_output_tokens", 100}, {"stream", GetParam().stream}}},
                            {"retry", {{"max_attempts", 1}}},
                            {"prices", {{"input", 1.0}, {"output", 2.0}}},
                            {"raw_log_dir", dir_ + "/ask-raw"}};
  const std::string config_path = dir_ + "/config.json";
  std::ofstream(config_path) << config_file.dump(2);
  const std::string run = "'" + testing::kforge_binary() + "' ask --config '" + config_path + "' 'say hi'";
  const int ok_status = testing::run_shell(run + " >'" + dir_ + "/ask1.out' 2>'" + dir_ + "/ask1.err'").exit_code;
  const int fail_status = testing::run_shell(run + " >'" + dir_ + "/ask2.out' 2>'" + dir_ + "/ask2.err'").exit_code;
  EXPECT_EQ(ok_status, 0) << testing::slurp(dir_ + "/ask1.err");
  EXPECT_NE(testing::slurp(dir_ + "/ask1.out").find("echo: [REDACTED]"), std::string::npos)
      << testing::slurp(dir_ + "/ask1.out");
  EXPECT_EQ(fail_status, 1) << testing::slurp(dir_ + "/ask2.err");
  EXPECT_NE(testing::slurp(dir_ + "/ask2.err").find("auth"), std::string::npos) << testing::slurp(dir_ + "/ask2.err");
  EXPECT_EQ(testing::read_tree(dir_ + "/ask-raw").size(), 2u);
  // TearDown scans every file in the test folder (these outputs included) for the key.
}

// `kforge ask --json`: one object on stdout, for a reply and for a failure; the key never in it.
TEST_P(ProviderIntegration, KforgeAskJsonPrintsOneObject) {
  serve(json::array(
      {{{"answer", std::string("echo ") + kPlantedKey},
        {"reasoning", "think"},
        {"usage", {{"input", 40}, {"cached", 10}, {"output", 5}, {"reasoning", 7}}}},
       {{"status", 429}, {"error_type", "insufficient_quota"}, {"error_message", "You exceeded your current quota"}}}));
  const ModelConfig m = config();
  const json config_file = {{"name", m.name},
                            {"provider", to_string(m.provider)},
                            {"base_url", m.base_url},
                            {"api_key_env", kKeyEnv},
                            {"model", m.model},
                            {"generation", {{"max_output_tokens", 100}, {"stream", GetParam().stream}}},
                            {"retry", {{"max_attempts", 2}, {"initial_backoff_s", 0.01}}},
                            {"prices", {{"input", 1.0}, {"output", 2.0}, {"reasoning", 2.0}, {"cached_input", 0.5}}}};
  const std::string config_path = dir_ + "/config.json";
  std::ofstream(config_path) << config_file.dump(2);
  const std::string run = "'" + testing::kforge_binary() + "' ask --json --config '" + config_path + "' 'say hi'";
  const int ok_status = testing::run_shell(run + " >'" + dir_ + "/json1.out' 2>'" + dir_ + "/json1.err'").exit_code;
  const int fail_status = testing::run_shell(run + " >'" + dir_ + "/json2.out' 2>'" + dir_ + "/json2.err'").exit_code;
  EXPECT_EQ(ok_status, 0) << testing::slurp(dir_ + "/json1.err");
  EXPECT_EQ(fail_status, 1) << testing::slurp(dir_ + "/json2.err");
  const json ok = json::parse(testing::slurp(dir_ + "/json1.out"), nullptr, false);
  ASSERT_TRUE(ok.is_object()) << testing::slurp(dir_ + "/json1.out");
  EXPECT_EQ(ok["ok"], true);
  EXPECT_EQ(ok["answer"], "echo [REDACTED]");
  EXPECT_EQ(ok["reasoning"], "think");
  EXPECT_EQ(ok["finish_reason"], "stop");
  EXPECT_EQ(ok["attempts"], 1);
  EXPECT_TRUE(ok["latency_s"].is_number());
  EXPECT_EQ(ok["usage"]["input_tokens"], 40);
  EXPECT_EQ(ok["usage"]["cached_input_tokens"], 10);
  // Anthropic's wire (without thinking_tokens) carries one output total: split by text, and said so.
  const bool anthropic = GetParam().kind == ProviderKind::anthropic;
  EXPECT_EQ(ok["usage"]["reasoning_tokens_source"], anthropic ? "estimated" : "reported");
  EXPECT_EQ(ok["usage"]["output_tokens"].get<int64_t>() + ok["usage"]["reasoning_tokens"].get<int64_t>(), 12);
  if (!anthropic) {
    EXPECT_EQ(ok["usage"]["reasoning_tokens"], 7);
    EXPECT_NEAR(ok["cost_usd"].get<double>(), (30 * 1.0 + 10 * 0.5 + 5 * 2.0 + 7 * 2.0) / 1e6, 1e-12);
  }
  const json fail = json::parse(testing::slurp(dir_ + "/json2.out"), nullptr, false);
  ASSERT_TRUE(fail.is_object()) << testing::slurp(dir_ + "/json2.out");
  EXPECT_EQ(fail["ok"], false);
  EXPECT_EQ(fail["error"]["class"], "quota");
  EXPECT_EQ(fail["error"]["http_status"], 429);
  EXPECT_EQ(fail["attempts"], 1);
  EXPECT_NE(fail["error"]["advice"].get<std::string>().find("credit"), std::string::npos) << fail.dump();
  // TearDown scans the outputs for the key.
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, ProviderIntegration,
    ::testing::Values(Case{ProviderKind::openai_chat, true}, Case{ProviderKind::openai_chat, false},
                      Case{ProviderKind::openai_responses, true}, Case{ProviderKind::openai_responses, false},
                      Case{ProviderKind::anthropic, true}, Case{ProviderKind::anthropic, false},
                      Case{ProviderKind::gemini, true}, Case{ProviderKind::gemini, false},
                      Case{ProviderKind::openai_compatible, true}, Case{ProviderKind::openai_compatible, false}),
    case_name);

// Reasoning in each of its Chat Completions forms; the <think> forms are for compatible servers.
class ChatReasoningForms : public ProviderIntegration {};

TEST_P(ChatReasoningForms, EachFormIsSeparatedFromTheAnswer) {
  const bool compatible = GetParam().kind == ProviderKind::openai_compatible;
  std::vector<std::string> forms = {"reasoning_content", "reasoning"};
  if (compatible) forms.insert(forms.end(), {"think_tags", "think_close_only"});
  json script = json::array();
  for (const auto& form : forms)
    script.push_back({{"answer", "x = max(x, 0)"},
                      {"reasoning", "ReLU clamps negatives </to> zero"},
                      {"reasoning_form", form},
                      {"chunk_chars", 3}});
  serve(script);
  for (const auto& form : forms) {
    const Reply reply = reply_of(ask());
    EXPECT_EQ(reply.answer, "x = max(x, 0)") << form;
    EXPECT_EQ(reply.reasoning, "ReLU clamps negatives </to> zero") << form;
  }
}

INSTANTIATE_TEST_SUITE_P(ChatKinds, ChatReasoningForms,
                         ::testing::Values(Case{ProviderKind::openai_chat, true},
                                           Case{ProviderKind::openai_chat, false},
                                           Case{ProviderKind::openai_compatible, true},
                                           Case{ProviderKind::openai_compatible, false}),
                         case_name);

class AnthropicThinking : public ProviderIntegration {};

TEST_P(AnthropicThinking, RedactedThinkingIsNotedAndSignaturesIgnored) {
  serve(json::array({{{"answer", "done"},
                      {"reasoning", "visible thinking"},
                      {"redacted_thinking", "EncRyPtEd=="},
                      {"thinking_signature", "sig-abc"}}}));
  const Reply reply = reply_of(ask());
  EXPECT_EQ(reply.answer, "done");
  EXPECT_EQ(reply.reasoning, "visible thinking\n\n[redacted thinking]");
  EXPECT_EQ(reply.reasoning.find("sig-abc"), std::string::npos);
  EXPECT_EQ(reply.reasoning.find("EncRyPtEd"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Anthropic, AnthropicThinking,
                         ::testing::Values(Case{ProviderKind::anthropic, true}, Case{ProviderKind::anthropic, false}),
                         case_name);

// The four real shapes of issue 12, emitted by the mock server as the APIs send them, asserted from the
// server's request log.
class RealShapes : public ProviderIntegration {
 protected:
  ModelConfig fast_config() const {
    ModelConfig m = config();
    m.retry = {3, 0.01, 0.02, 2, 0, 900};  // backoff alone waits at most 20 ms
    return m;
  }
  int64_t gap_ms(size_t later) const {
    const auto r = server_->requests();
    return r.at(later)["t_ms"].get<int64_t>() - r.at(later - 1)["t_ms"].get<int64_t>();
  }
};

// 1. OpenAI's per-day request limit: type "requests", code rate_limit_exceeded, a message that mentions
// billing. A rate limit: retried after the wait the message names, then answered.
TEST_P(RealShapes, OpenAiRateLimitMentioningBillingIsRetriedAfterItsWait) {
  if (api_family(GetParam().kind) != ApiFamily::openai) GTEST_SKIP() << "an OpenAI error body";
  serve(json::array(
      {{{"status", 429},
        {"error_type", "requests"},
        {"error_code", "rate_limit_exceeded"},
        {"error_message",
         "Rate limit reached for gpt-4-turbo-preview in organization org-itest on requests per day (RPD): Limit 200, "
         "Used 200, Requested 1. Please try again in 0.4s. Visit https://platform.openai.com/account/rate-limits to "
         "learn more. You can increase your rate limit by adding a payment method to your account at "
         "https://platform.openai.com/account/billing."},
        {"headers",
         {{"x-ratelimit-limit-requests", "200"},
          {"x-ratelimit-remaining-requests", "0"},
          {"x-ratelimit-reset-requests", "0.4s"}}}},
       {{"answer", "after the wait"}}}));
  const Reply reply = reply_of(ask(fast_config()));
  EXPECT_EQ(reply.answer, "after the wait");
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(server_->requests().size(), 2u);
  EXPECT_GE(gap_ms(1), 400) << "the wait of the message (0.4s), not the 20 ms backoff";
}

// 2. Gemini's per-minute quota: RESOURCE_EXHAUSTED, "You exceeded your current quota ... billing details",
// a QuotaFailure naming PerMinute and RetryInfo.retryDelay. A rate limit: retried after retryDelay.
TEST_P(RealShapes, GeminiPerMinuteQuotaIsRetriedAfterRetryDelay) {
  if (GetParam().kind != ProviderKind::gemini) GTEST_SKIP() << "a Gemini error body";
  serve(json::array(
      {{{"status", 429},
        {"error_type", "RESOURCE_EXHAUSTED"},
        {"error_message",
         "You exceeded your current quota, please check your plan and billing details. For more information on this "
         "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."},
        {"quota_id", "GenerateContentInputTokensPerModelPerMinute-FreeTier"},
        {"retry_delay", "0.6s"}},
       {{"answer", "after retryDelay"}}}));
  const Reply reply = reply_of(ask(fast_config()));
  EXPECT_EQ(reply.answer, "after retryDelay");
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(server_->requests().size(), 2u);
  EXPECT_GE(gap_ms(1), 600) << "RetryInfo.retryDelay (0.6s), not the 20 ms backoff";
}

// Per-day quotas are final: `quota` at once, advice about the daily reset.
TEST_P(RealShapes, GeminiPerDayQuotaIsFinal) {
  if (GetParam().kind != ProviderKind::gemini) GTEST_SKIP() << "a Gemini error body";
  serve(json::array({{{"status", 429},
                      {"error_type", "RESOURCE_EXHAUSTED"},
                      {"error_message", "You exceeded your current quota, please check your plan and billing details."},
                      {"quota_id", "GenerateRequestsPerDayPerProjectPerModel-FreeTier"},
                      {"retry_delay", "0.1s"}},
                     {{"answer", "not reached"}}}));
  const auto e = error_of(ask(fast_config()));
  EXPECT_EQ(e.kind, ProviderErrorKind::quota) << e.message;
  EXPECT_EQ(e.cause, ErrorCause::daily_quota);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_NE(e.advice.find("per-day"), std::string::npos) << e.advice;
  EXPECT_EQ(server_->requests().size(), 1u);
}

// A server wait beyond retry.max_server_wait_s ends the call at once, saying so.
TEST_P(RealShapes, ServerWaitLongerThanTheMaximumFailsInsteadOfSleeping) {
  serve(json::array({{{"status", 429}, {"retry_after", 3600}}, {{"answer", "not reached"}}}));
  ModelConfig m = fast_config();
  m.retry.max_server_wait_s = 5;
  const auto e = error_of(ask(m));
  EXPECT_EQ(e.kind, ProviderErrorKind::rate_limit) << e.message;
  EXPECT_EQ(e.cause, ErrorCause::wait_too_long);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_NE(e.message.find("3600 s"), std::string::npos) << e.message;
  EXPECT_NE(e.advice.find("retry.max_server_wait_s"), std::string::npos) << e.advice;
  EXPECT_EQ(server_->requests().size(), 1u);
}

// 3. Anthropic's output_tokens_details.thinking_tokens: 67 of 120 output tokens, with no thinking text at
// all (summarised or omitted). The reported split is used, not a character estimate.
TEST_P(RealShapes, AnthropicThinkingTokensAreTakenAsReported) {
  if (GetParam().kind != ProviderKind::anthropic) GTEST_SKIP() << "an Anthropic usage field";
  serve(json::array({{{"answer", "the kernel"},
                      {"report_reasoning_tokens", true},
                      {"usage", {{"input", 30}, {"output", 53}, {"reasoning", 67}}}},
                     {{"answer", "the kernel"},
                      {"reasoning", "short"},
                      {"usage", {{"input", 30}, {"output", 53}, {"reasoning", 67}}}}}));
  const Reply reported = reply_of(ask(fast_config()));
  EXPECT_EQ(reported.reasoning, "");
  EXPECT_EQ(reported.usage.output_tokens, 53);
  EXPECT_EQ(reported.usage.reasoning_tokens, 67);
  EXPECT_EQ(reported.usage.reasoning_source, Usage::ReasoningSource::reported);
  // Without the field (older responses) the split is estimated from the text, and flagged as such.
  const Reply estimated = reply_of(ask(fast_config()));
  EXPECT_EQ(estimated.usage.output_tokens + estimated.usage.reasoning_tokens, 120);
  EXPECT_EQ(estimated.usage.reasoning_source, Usage::ReasoningSource::estimated);
  const auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 2u);
}

// 4. Gemini's HTTP 400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID: an authentication failure
// whose advice names the key variable.
TEST_P(RealShapes, GeminiApiKeyInvalidIsAuth) {
  if (GetParam().kind != ProviderKind::gemini) GTEST_SKIP() << "a Gemini error body";
  serve(json::array({{{"status", 400},
                      {"error_type", "INVALID_ARGUMENT"},
                      {"error_message", "API key not valid. Please pass a valid API key."},
                      {"error_reason", "API_KEY_INVALID"}},
                     {{"answer", "not reached"}}}));
  const auto e = error_of(ask(fast_config()));
  EXPECT_EQ(e.kind, ProviderErrorKind::auth) << e.message;
  EXPECT_EQ(e.cause, ErrorCause::key_invalid);
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_NE(e.advice.find(kKeyEnv), std::string::npos) << e.advice;
  EXPECT_EQ(server_->requests().size(), 1u);
  EXPECT_EQ(server_->requests()[0]["auth_present"], true);
}

// Compatible servers without completion_tokens_details: the reasoning share is estimated, and flagged.
TEST_P(RealShapes, UnreportedReasoningTokensAreEstimatedAndFlagged) {
  serve(json::array({{{"answer", "aaaa"},
                      {"reasoning", "rrrrrrrrrrrr"},
                      {"report_reasoning_tokens", false},
                      {"usage", {{"input", 9}, {"output", 10}, {"reasoning", 30}}}}}));
  const Reply reply = reply_of(ask(fast_config()));
  if (GetParam().kind == ProviderKind::gemini) {
    // Gemini counts thoughts apart: without thoughtsTokenCount there is nothing to split.
    EXPECT_EQ(reply.usage.output_tokens, 10);
    EXPECT_EQ(reply.usage.reasoning_source, Usage::ReasoningSource::none);
  } else {
    EXPECT_EQ(reply.usage.output_tokens, 10);  // 40 split 4:12 by characters
    EXPECT_EQ(reply.usage.reasoning_tokens, 30);
    EXPECT_EQ(reply.usage.reasoning_source, Usage::ReasoningSource::estimated);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RealShapes,
                         ::testing::Values(Case{ProviderKind::openai_chat, true},
                                           Case{ProviderKind::openai_chat, false},
                                           Case{ProviderKind::openai_responses, true},
                                           Case{ProviderKind::anthropic, true}, Case{ProviderKind::anthropic, false},
                                           Case{ProviderKind::gemini, true}, Case{ProviderKind::gemini, false},
                                           Case{ProviderKind::openai_compatible, true}),
                         case_name);

}  // namespace
}  // namespace kf::providers
