// Recorded real API responses (../shared/wire/fixtures, sources in its README.md) served byte for byte by
// the real `kforge mock-server` (script field body_file) to the matching provider module over loopback:
// answer, reasoning, usage (with where the reasoning split came from), finish reason, error class and
// the retries each case calls for. Every fixture file is used by at least one case.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "providers/provider.h"
#include "tests/support/mock_server.h"

namespace kf::providers {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// KFORGE_WIRE_DIR when set, else ../shared/wire next to the repository (CI), else .shared/wire inside it
// (the GPU machine's copy). "" when the chosen folder holds no fixtures/.
std::string wire_dir() {
  std::vector<std::string> candidates;
  if (const char* d = std::getenv("KFORGE_WIRE_DIR"); d && *d)
    candidates.push_back(d);
  else
    candidates = {std::string(KFORGE_TEST_SOURCE_DIR) + "/../shared/wire",
                  std::string(KFORGE_TEST_SOURCE_DIR) + "/.shared/wire"};
  for (const auto& dir : candidates)
    if (fs::is_directory(dir + "/fixtures")) return dir;
  return "";
}

// Bodies added by review (tests/providers/wire_review, sources in its README.md); a step names them "review/...".
const std::string kReview = "review/";
std::string review_dir() { return std::string(KFORGE_TEST_SOURCE_DIR) + "/tests/providers/wire_review"; }

std::string fixture_path(const std::string& wire, const std::string& fixture) {
  if (fixture.rfind(kReview, 0) == 0) return review_dir() + "/" + fixture.substr(kReview.size());
  return wire + "/fixtures/" + fixture;
}

std::string skip_message() {
  const char* d = std::getenv("KFORGE_WIRE_DIR");
  if (d && *d) return std::string("KFORGE_WIRE_DIR=") + d + " has no fixtures/ folder: point it at the wire folder";
  return "no recorded fixtures at ../shared/wire or .shared/wire next to the sources: set KFORGE_WIRE_DIR to the wire "
         "folder (holding fixtures/ and README.md) to run the replay";
}

struct Step {
  std::string fixture{};
  int status = 200;
  json headers = json::object();
  bool unlimited = false;  // answers every further request too
};

struct Usage4 {
  int64_t input, cached, output, reasoning;
  Usage::ReasoningSource source;
};

struct Case {
  std::string name{};  // the README's case name
  ProviderKind kind = ProviderKind::openai_chat;
  bool stream = false;
  std::vector<Step> steps{};
  // Expected reply...
  std::optional<std::string> answer{};  // exact
  std::string answer_prefix{}, answer_suffix{};
  size_t answer_bytes = 0;  // when only prefix/suffix are given
  std::optional<std::string> reasoning{};
  std::string finish = "stop";
  std::optional<Usage4> usage{};
  // ...or expected error.
  std::optional<ProviderErrorKind> error{};
  ErrorCause cause = ErrorCause::none;
  int attempts = 1;
  double max_server_wait_s = 60;
  std::string message_has{};  // a part of the error message that makes it actionable
  bool uses_shared() const {
    for (const auto& s : steps)
      if (s.fixture.rfind(kReview, 0) != 0) return true;
    return false;
  }
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

using K = ProviderKind;
using E = ProviderErrorKind;
using S = Usage::ReasoningSource;
constexpr auto R = S::reported;
constexpr auto EST = S::estimated;
constexpr auto NONE = S::none;

const std::string kOcPlain =
    "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend "
    "checking a reliable weather website or a weather app.";
const json kOpenAiRateHeaders = {{"x-ratelimit-limit-requests", "60"},     {"x-ratelimit-limit-tokens", "150000"},
                                 {"x-ratelimit-remaining-requests", "59"}, {"x-ratelimit-remaining-tokens", "149984"},
                                 {"x-ratelimit-reset-requests", "1s"},     {"x-ratelimit-reset-tokens", "6m0s"}};
const json kAnthropicRateHeaders = {{"retry-after", "1"},
                                    {"anthropic-ratelimit-input-tokens-limit", "30000"},
                                    {"anthropic-ratelimit-input-tokens-remaining", "0"},
                                    {"anthropic-ratelimit-input-tokens-reset", "2025-01-01T00:00:01Z"}};

Case reply(std::string name, K kind, bool stream, std::vector<Step> steps, std::string answer,
           std::optional<std::string> reasoning, std::string finish, Usage4 usage) {
  Case c{std::move(name), kind, stream, std::move(steps)};
  c.answer = std::move(answer);
  c.reasoning = std::move(reasoning);
  c.finish = std::move(finish);
  c.usage = usage;
  c.attempts = static_cast<int>(c.steps.size());
  return c;
}

Case failure(std::string name, K kind, bool stream, std::vector<Step> steps, E error,
             ErrorCause cause = ErrorCause::none, int attempts = 1) {
  Case c{std::move(name), kind, stream, std::move(steps)};
  c.error = error;
  c.cause = cause;
  c.attempts = attempts;
  return c;
}

Case long_reply(Case c, std::string prefix, std::string suffix, size_t bytes) {
  c.answer.reset();
  c.answer_prefix = std::move(prefix);
  c.answer_suffix = std::move(suffix);
  c.answer_bytes = bytes;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  // --- OpenAI Chat Completions
  v.push_back(
      reply("oc-nonstream-plain", K::openai_chat, false, {{"oc_nonstream_plain.json"}},
            "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I "
            "recommend checking a reliable weather website or app like the Weather Channel or a local news station.",
            "", "stop", {14, 0, 37, 0, R}));
  v.push_back(reply("oc-stream-plain-usage-chunk", K::openai_chat, true, {{"oc_stream_plain.sse"}}, kOcPlain, "",
                    "stop", {14, 0, 30, 0, R}));
  v.push_back(reply("oc-stream-finish-length", K::openai_chat, true, {{"oc_stream_length.sse"}}, "{\"", "", "length",
                    {17, 0, 1, 0, NONE}));
  v.push_back(reply("oc-nonstream-finish-length", K::openai_chat, false, {{"oc_nonstream_length.json"}}, "{\"", "",
                    "length", {79, 0, 1, 0, R}));
  v.push_back(failure("oc-stream-refusal", K::openai_chat, true, {{"oc_stream_refusal.sse"}}, E::content_filter));
  v.push_back(reply("oc-stream-error-after-200", K::openai_chat, true,
                    {{"oc_stream_midstream_error.sse"}, {"oc_stream_plain.sse"}}, kOcPlain, "", "stop",
                    {14, 0, 30, 0, R}));
  {
    json h = kOpenAiRateHeaders;  // the message's own "try again in 1ms" is the wait
    v.push_back(reply("oc-429-tpm-then-ok", K::openai_chat, true,
                      {{"oc_429_tpm.json", 429, h}, {"oc_stream_plain.sse"}}, kOcPlain, "", "stop", {14, 0, 30, 0, R}));
  }
  // The message asks for 7m12s; a retry-after-ms header (which takes precedence) keeps the test short.
  v.push_back(reply("oc-429-rpd-billing-link-then-ok", K::openai_chat, true,
                    {{"oc_429_rpd_billing.json", 429, {{"retry-after-ms", "50"}}}, {"oc_stream_plain.sse"}}, kOcPlain,
                    "", "stop", {14, 0, 30, 0, R}));
  {
    // Without a header the message's 7m12s is the wait: longer than retry.max_server_wait_s, so the call
    // fails at once as a rate limit that says so, instead of sleeping (and never as `quota`).
    Case c =
        failure("oc-429-rpd-wait-longer-than-max", K::openai_chat, true,
                {{"oc_429_rpd_billing.json", 429}, {"oc_stream_plain.sse"}}, E::rate_limit, ErrorCause::wait_too_long);
    v.push_back(c);
  }
  v.push_back(failure("oc-429-insufficient-quota", K::openai_chat, true,
                      {{"oc_429_insufficient_quota.json", 429}, {"oc_stream_plain.sse"}}, E::quota,
                      ErrorCause::out_of_credit));
  v.push_back(failure("oc-401-invalid-key", K::openai_chat, true, {{"oc_401.json", 401}, {"oc_stream_plain.sse"}},
                      E::auth, ErrorCause::key_invalid));
  v.push_back(failure("oc-400-context-length", K::openai_chat, false,
                      {{"oc_400_context_length.json", 400}, {"oc_nonstream_plain.json"}}, E::bad_request,
                      ErrorCause::context_length));
  v.push_back(reply("oc-500-then-ok", K::openai_chat, true, {{"oc_500.json", 500}, {"oc_stream_plain.sse"}}, kOcPlain,
                    "", "stop", {14, 0, 30, 0, R}));
  v.push_back(failure("oc-503-always", K::openai_chat, true, {{"oc_503.json", 503, json::object(), true}}, E::server,
                      ErrorCause::none, 3));
  v.push_back(
      reply("oc-429-retry-after-ms-then-ok", K::openai_chat, true,
            {{"oc_429_tpm.json", 429, {{"retry-after-ms", "1500"}, {"retry-after", "2"}}}, {"oc_stream_plain.sse"}},
            kOcPlain, "", "stop", {14, 0, 30, 0, R}));
  // --- OpenAI Responses
  v.push_back(
      reply("or-nonstream-plain", K::openai_responses, false, {{"or_nonstream_plain.json"}},
            "I can't provide real-time updates, but you can easily check the current weather in San Francisco "
            "using a weather website or app. Typically, San Francisco has cool, foggy summers and mild winters, "
            "so it's good to be prepared for variable weather!",
            "", "stop", {14, 0, 50, 0, R}));
  {
    Case c = reply("or-nonstream-reasoning-item", K::openai_responses, false, {{"or_nonstream_reasoning.json"}},
                   "The capital of France is Paris.", std::nullopt, "stop", {75, 0, 162, 1024, R});
    v.push_back(c);
  }
  v.push_back(failure("or-nonstream-incomplete-max-output", K::openai_responses, false,
                      {{"or_nonstream_incomplete.json"}}, E::output_limit));
  v.push_back(reply("or-stream-reasoning-summary", K::openai_responses, true, {{"or_stream_codex_reasoning.sse"}},
                    "Hello! Ready when you are.", "**Preparing simple response**", "stop", {4006, 0, 13, 0, R}));
  v.push_back(reply("or-stream-cached-input", K::openai_responses, true, {{"or_stream_cached.sse"}},
                    "Test response with cached tokens.", "", "stop", {16909, 15744, 54, 0, R}));
  v.push_back(failure("or-stream-incomplete-max-output", K::openai_responses, true, {{"or_stream_incomplete.sse"}},
                      E::output_limit));
  v.push_back(failure("or-stream-response-failed", K::openai_responses, true,
                      {{"or_stream_failed.sse", 200, json::object(), true}}, E::server, ErrorCause::none, 3));
  v.push_back(failure("or-stream-error-event", K::openai_responses, true,
                      {{"or_stream_error_event.sse", 200, json::object(), true}}, E::server, ErrorCause::none, 3));
  // --- Anthropic
  v.push_back(reply("an-stream-plain-ping", K::anthropic, true, {{"an_stream_basic.sse"}}, "Hello there!", "", "stop",
                    {11, 0, 6, 0, NONE}));
  v.push_back(reply(
      "an-stream-thinking-signature-docs", K::anthropic, true, {{"an_stream_thinking_docs.sse"}}, "27 * 453 = 12,231",
      "Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3\n3. 27 * 400 = "
      "10,800\n4. 27 * 50 = 1,350\n5. 27 * 3 = 81\n6. 10,800 + 1,350 + 81 = 12,231",
      "stop", {0, 0, 0, 0, NONE}));
  v.push_back(long_reply(reply("an-stream-thinking-real", K::anthropic, true, {{"an_stream_thinking_real.sse"}}, "",
                               "This is a classic philosophical question about medieval scholasticism. I'll give a "
                               "thoughtful answer.",
                               "stop", {18, 0, 222, 18, EST}),
                         "This is a famous philosophical question often used to illustrate medieval",
                         " nature of philosophical inquiry itself.", 1222));
  v.push_back(long_reply(
      reply("an-nonstream-thinking-real", K::anthropic, false, {{"an_nonstream_thinking_real.json"}}, "",
            "This is a classic philosophical question about medieval scholasticism. I'll give a "
            "thoughtful answer.",
            "stop", {18, 0, 235, 19, EST}),
      "This is a famous philosophical question, often called", "thinking about it in a different context?", 1226));
  v.push_back(reply("an-nonstream-redacted-thinking", K::anthropic, false, {{"an_nonstream_redacted.json"}},
                    "Based on my analysis...", "Let me analyze this step by step...\n\n[redacted thinking]", "stop",
                    {18, 0, 101, 153, EST}));
  // The reported split: 3 thinking tokens of 8, although no thinking text was streamed at all.
  v.push_back(reply("an-stream-usage-thinking-tokens", K::anthropic, true, {{"an_stream_thinking_tokens.sse"}},
                    "Hello there!", "", "stop", {59, 7, 5, 3, R}));
  v.push_back(failure("an-stream-refusal", K::anthropic, true, {{"an_stream_refusal.sse"}}, E::content_filter));
  v.push_back(reply("an-stream-error-event-after-200", K::anthropic, true,
                    {{"an_stream_error_overloaded.sse"}, {"an_stream_basic.sse"}}, "Hello there!", "", "stop",
                    {11, 0, 6, 0, NONE}));
  v.push_back(reply("an-529-then-ok", K::anthropic, true, {{"an_529.json", 529}, {"an_stream_basic.sse"}},
                    "Hello there!", "", "stop", {11, 0, 6, 0, NONE}));
  v.push_back(reply("an-429-retry-after-then-ok", K::anthropic, true,
                    {{"an_429.json", 429, kAnthropicRateHeaders}, {"an_stream_basic.sse"}}, "Hello there!", "", "stop",
                    {11, 0, 6, 0, NONE}));
  v.push_back(failure("an-401-invalid-key", K::anthropic, true, {{"an_401.json", 401}, {"an_stream_basic.sse"}},
                      E::auth, ErrorCause::key_invalid));
  v.push_back(failure("an-400-prompt-too-long", K::anthropic, false, {{"an_400_prompt_too_long.json", 400}},
                      E::bad_request, ErrorCause::context_length));
  v.push_back(failure("an-400-credit-balance", K::anthropic, false, {{"an_400_credit.json", 400}}, E::quota,
                      ErrorCause::out_of_credit));
  // --- Gemini
  v.push_back(long_reply(reply("ge-stream-plain-thoughts-usage", K::gemini, true, {{"ge_stream_plain.sse"}}, "", "",
                               "stop", {20, 0, 253, 260, R}),
                         "low!\n\nThe sky is blue primarily due to a phenomenon called **Rayleigh scattering**.",
                         "so we perceive the sky as blue rather than violet.", 1156));
  v.push_back(long_reply(reply("ge-nonstream-cached-thoughts", K::gemini, false, {{"ge_nonstream_cached.json"}}, "", "",
                               "stop", {5, 3, 238, 41, R}),
                         "{\n  \"simpleString\": \"example\",", "\"innerNumber\": 100\n  }\n}", 576));
  v.push_back(failure("ge-nonstream-thought-only-max-tokens", K::gemini, false,
                      {{"ge_nonstream_thought_max_tokens.json"}}, E::output_limit));
  v.push_back(
      failure("ge-nonstream-prompt-blocked", K::gemini, false, {{"ge_prompt_blocked.json"}}, E::content_filter));
  v.push_back(failure("ge-nonstream-finish-safety", K::gemini, false, {{"ge_finish_safety.json"}}, E::content_filter));
  // RetryInfo asks for 26s; a retry-after header (which takes precedence) keeps the test short.
  v.push_back(long_reply(reply("ge-429-per-minute-retryinfo-then-ok", K::gemini, true,
                               {{"ge_429_per_minute.json", 429, {{"retry-after", "0.05"}}}, {"ge_stream_plain.sse"}},
                               "", "", "stop", {20, 0, 253, 260, R}),
                         "low!", "rather than violet.", 1156));
  {
    // Without the header the 26s of RetryInfo is the wait: a rate limit (never `quota`), here longer than
    // the configured maximum, so the call says so instead of sleeping.
    Case c =
        failure("ge-429-per-minute-retryinfo-wait-over-max", K::gemini, true,
                {{"ge_429_per_minute.json", 429}, {"ge_stream_plain.sse"}}, E::rate_limit, ErrorCause::wait_too_long);
    c.max_server_wait_s = 10;
    v.push_back(c);
  }
  v.push_back(failure("ge-400-api-key-invalid", K::gemini, true, {{"ge_400_key.json", 400}, {"ge_stream_plain.sse"}},
                      E::auth, ErrorCause::key_invalid));
  v.push_back(long_reply(reply("ge-503-then-ok", K::gemini, true, {{"ge_503.json", 503}, {"ge_stream_plain.sse"}}, "",
                               "", "stop", {20, 0, 253, 260, R}),
                         "low!", "rather than violet.", 1156));
  // --- OpenAI-compatible servers
  v.push_back(reply("vllm-stream-reasoning-and-reasoning_content", K::openai_compatible, true,
                    {{"vllm_stream_both_fields.sse"}}, "1+1 = 2", "好的，用户问的是1+1。", "stop",
                    {14, 0, 5, 21, EST}));
  v.push_back(reply("vllm-stream-reasoning-field-only", K::openai_compatible, true,
                    {{"vllm_stream_reasoning_only.sse"}}, "1+1 = 2", "好的，用户问的是1+1。", "stop",
                    {14, 0, 5, 21, EST}));
  v.push_back(reply("ollama-stream-reasoning-field", K::openai_compatible, true, {{"ollama_stream_reasoning.sse"}},
                    "Hello! How can I help?", "The user asks for a greeting.", "stop", {70, 0, 9, 12, EST}));
  v.push_back(reply("llamacpp-stream-reasoning_content-timings", K::openai_compatible, true,
                    {{"llamacpp_stream_reasoning.sse"}}, "Tile it.", " it handles a tile.", "stop",
                    {17, 0, 2, 6, EST}));
  v.push_back(reply("deepseek-stream-reasoning_content-cache-hit", K::openai_compatible, true,
                    {{"deepseek_stream_reasoning.sse"}}, "9.8 is greater.", "Okay, 9.11 vs 9.8.", "stop",
                    {18, 0, 10, 240, R}));
  v.push_back(reply("deepseek-nonstream-keepalive-lines", K::openai_compatible, false,
                    {{"deepseek_nonstream_keepalive.json"}}, "9.8 is greater.", "Okay, 9.11 vs 9.8.", "stop",
                    {1024, 768, 10, 240, R}));
  v.push_back(reply("openrouter-stream-reasoning-comments", K::openai_compatible, true,
                    {{"openrouter_stream_reasoning.sse"}}, "Here it is.", "Need a kernel.", "stop", {20, 0, 8, 52, R}));
  v.push_back(reply("thinktags-stream-content", K::openai_compatible, true, {{"thinktags_stream.sse"}},
                    "Use a grid-stride loop.", "\nOkay, the user wants it fast.\n", "stop", {7, 0, 6, 9, EST}));
  v.push_back(failure("openrouter-stream-error-chunk", K::openai_compatible, true,
                      {{"openrouter_stream_midstream_error.sse", 200, json::object(), true}}, E::server,
                      ErrorCause::none, 3));
  return v;
}

Case with_message(Case c, std::string part) {
  c.message_has = std::move(part);
  return c;
}

// Shapes of real responses the recorded set lacks, each from the source named in wire_review/README.md.
std::vector<Case> review_cases() {
  std::vector<Case> v;
  const std::string rv = kReview;
  // Context overflow in the words Anthropic and llama.cpp use: no retry can shorten the prompt.
  v.push_back(failure("an-400-context-limit", K::anthropic, false, {{rv + "an_400_context_limit.json", 400}},
                      E::bad_request, ErrorCause::context_length));
  v.push_back(failure("llamacpp-400-exceed-context-size", K::openai_compatible, true,
                      {{rv + "llamacpp_400_exceed_context.json", 400}}, E::bad_request, ErrorCause::context_length));
  v.push_back(failure("llamacpp-500-exceed-context-size", K::openai_compatible, true,
                      {{rv + "llamacpp_500_exceed_context.json", 500, json::object(), true}}, E::bad_request,
                      ErrorCause::context_length));
  v.push_back(failure("llamacpp-500-context-size-exceeded", K::openai_compatible, false,
                      {{rv + "llamacpp_500_context_exceeded.json", 500, json::object(), true}}, E::bad_request,
                      ErrorCause::context_length));
  v.push_back(failure("sglang-stream-error-chunk-context", K::openai_compatible, true,
                      {{rv + "sglang_stream_error_context.sse", 200, json::object(), true}}, E::bad_request,
                      ErrorCause::context_length));
  // An overflow reported as server_error after HTTP 200 (kronk) and as type context_exceeded (ds4).
  v.push_back(failure("kronk-stream-server-error-context-window-full", K::openai_compatible, true,
                      {{rv + "kronk_stream_error_context_window.sse", 200, json::object(), true}}, E::bad_request,
                      ErrorCause::context_length));
  v.push_back(failure("ds4-400-context-exceeded", K::openai_compatible, false,
                      {{rv + "ds4_400_context_exceeded.json", 400}}, E::bad_request, ErrorCause::context_length));
  // Gemini's OpenAI-compatible endpoint wraps google.rpc.Status errors in an array.
  v.push_back(failure("gecompat-400-api-key-invalid-array", K::openai_compatible, true,
                      {{rv + "gecompat_400_key_array.json", 400}}, E::auth, ErrorCause::key_invalid));
  v.push_back(reply("gecompat-429-array-then-ok", K::openai_compatible, true,
                    {{rv + "gecompat_429_array.json", 429, {{"retry-after", "0.05"}}}, {"oc_stream_plain.sse"}},
                    kOcPlain, "", "stop", {14, 0, 30, 0, R}));
  // Proxies' HTML pages: retried on 5xx, named by their title, never read as a cut stream.
  v.push_back(reply("cloudflare-502-html-then-ok", K::openai_chat, true,
                    {{rv + "cloudflare_502.html", 502}, {"oc_stream_plain.sse"}}, kOcPlain, "", "stop",
                    {14, 0, 30, 0, R}));
  v.push_back(
      with_message(failure("cloudflare-502-html-always", K::openai_chat, false,
                           {{rv + "cloudflare_502.html", 502, json::object(), true}}, E::server, ErrorCause::none, 3),
                   "HTTP 502: an HTML page: 502 Bad Gateway"));
  v.push_back(with_message(
      failure("html-page-with-200-to-a-stream", K::openai_compatible, true,
              {{rv + "webui_200_index.html", 200, json::object(), true}}, E::malformed, ErrorCause::none, 3),
      "without an event stream: an HTML page: Open WebUI"));
  v.push_back(with_message(
      failure("nginx-301-redirect", K::openai_compatible, false,
              {{rv + "nginx_301.html", 301, {{"Location", "https://llm.example.org/v1/chat/completions"}}}},
              E::bad_request),
      "redirect to https://llm.example.org/v1/chat/completions"));
  // A server that closes the stream after finish_reason without `data: [DONE]`.
  v.push_back(reply("iklcpp-stream-no-done", K::openai_compatible, true, {{rv + "iklcpp_stream_no_done.sse"}},
                    "Tile it.", "", "stop", {17, 0, 3, 0, NONE}));
  v.push_back(reply("an-stream-overloaded-error-event-then-ok", K::anthropic, true,
                    {{rv + "an_stream_error_overloaded_type.sse"}, {"an_stream_basic.sse"}}, "Hello there!", "", "stop",
                    {11, 0, 6, 0, NONE}));
  v.push_back(reply("oc-nonstream-gzip", K::openai_chat, false,
                    {{rv + "oc_nonstream_gzip.json.gz", 200, {{"Content-Encoding", "gzip"}}}}, "Compressed hello.", "",
                    "stop", {14, 0, 4, 0, R}));
  // message_delta usage with null input/cache fields keeps message_start's figures (22044 input, 22000 cached).
  v.push_back(reply("an-stream-message-delta-null-usage-fields", K::anthropic, true,
                    {{rv + "an_stream_delta_usage_nulls.sse"}}, "Cached hello.", "", "stop",
                    {22044, 22000, 4, 0, NONE}));
  // vLLM's engine abort: finish_reason "abort", usage and [DONE] after a partial answer.
  v.push_back(with_message(
      failure("vllm-stream-finish-abort", K::openai_compatible, true,
              {{rv + "vllm_stream_finish_abort.sse", 200, json::object(), true}}, E::server, ErrorCause::none, 3),
      "finish_reason abort"));
  // Mistral's typed content chunks (Magistral): thinking chunks are reasoning, text chunks the answer.
  v.push_back(reply("mistral-nonstream-thinking-chunks", K::openai_compatible, false,
                    {{rv + "mistral_nonstream_thinking_chunks.json"}}, "Use shared memory tiles.",
                    "Reasoning traces...", "stop", {12, 0, 16, 12, EST}));
  v.push_back(reply("mistral-stream-thinking-chunks", K::openai_compatible, true,
                    {{rv + "mistral_stream_thinking_chunks.sse"}}, "Use shared memory tiles.", "Tiles fit in smem.",
                    "stop", {12, 0, 10, 8, EST}));
  // vLLM's reasoning parser with thinking disabled: the whole answer in reasoning_content, content null.
  v.push_back(reply("vllm-nonstream-answer-in-reasoning_content", K::openai_compatible, false,
                    {{rv + "vllm_nonstream_answer_in_reasoning.json"}}, "你好！有什么我可以帮你的吗？", "", "stop",
                    {22, 0, 9, 0, NONE}));
  // Azure OpenAI's prompt filter is a refusal, not a malformed request.
  v.push_back(failure("azure-400-content-filter", K::openai_chat, false, {{rv + "azure_400_content_filter.json", 400}},
                      E::content_filter));
  // An unknown model on Ollama's /v1: HTTP 404 with type "api_error" is the model name, not a server failure.
  v.push_back(failure("ollama-404-model-not-found", K::openai_compatible, false,
                      {{rv + "ollama_404_model_not_found.json", 404}}, E::bad_request, ErrorCause::model_not_found));
  // Anthropic's newer stop reason: the output ran into the context window (here during thinking).
  v.push_back(failure("an-stream-model-context-window-exceeded", K::anthropic, true,
                      {{rv + "an_stream_context_window_exceeded.sse"}}, E::output_limit));
  // Gemini's empty STOP candidate (no parts): retried, never handed on as an empty answer.
  v.push_back(with_message(
      failure("ge-nonstream-empty-stop-always", K::gemini, false,
              {{rv + "ge_nonstream_empty_stop.json", 200, json::object(), true}}, E::server, ErrorCause::none, 3),
      "no answer text (finish reason stop"));
  v.push_back(long_reply(
      reply("ge-nonstream-empty-stop-then-ok", K::gemini, false,
            {{rv + "ge_nonstream_empty_stop.json"}, {"ge_nonstream_cached.json"}}, "", "", "stop", {5, 3, 238, 41, R}),
      "{\n  \"simpleString\": \"example\",", "\"innerNumber\": 100\n  }\n}", 576));
  return v;
}

class FixtureReplay : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    wire_ = wire_dir();
    if (wire_.empty() && GetParam().uses_shared()) GTEST_SKIP() << skip_message();
    dir_ = testing::make_temp_dir("kforge-fixture-replay");
  }
  void TearDown() override {
    if (server_) server_->stop();
    std::error_code ec;
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_, ec);
  }

  std::string wire_, dir_;
  std::unique_ptr<testing::MockServerProcess> server_;
};

TEST_P(FixtureReplay, HandledAsTheReadmeSays) {
  const Case& c = GetParam();
  json script = json::array();
  for (const auto& step : c.steps) {
    json entry = {{"body_file", fixture_path(wire_, step.fixture)}, {"headers", step.headers}};
    if (step.status != 200) entry["status"] = step.status;
    if (step.unlimited) entry["times"] = "unlimited";
    script.push_back(entry);
  }
  server_ = testing::MockServerProcess::start(script, dir_);
  ASSERT_TRUE(server_);

  ModelConfig m;
  m.name = "replay-" + c.name;
  m.provider = c.kind;
  m.base_url = server_->base_url() + (c.kind == K::gemini ? "/v1beta" : "/v1");
  m.model = "replay-model";
  m.generation.stream = c.stream;
  m.timeouts = {2, 5, 20};
  m.retry = {3, 0.01, 0.05, 2, 0.25, c.max_server_wait_s};
  auto provider = make_provider(m);
  ASSERT_TRUE(provider.ok()) << provider.error().message;
  const auto result = (*provider)->complete({{"user", "replay " + c.name}});

  const auto requests = server_->requests();
  if (c.error) {
    const auto* e = std::get_if<ProviderError>(&result);
    ASSERT_NE(e, nullptr) << "expected " << to_string(*c.error)
                          << ", got the answer: " << std::get<Reply>(result).answer;
    EXPECT_EQ(to_string(e->kind), to_string(*c.error)) << e->message;
    EXPECT_EQ(to_string(e->cause), to_string(c.cause)) << e->message;
    EXPECT_EQ(e->attempts, c.attempts) << e->message;
    EXPECT_FALSE(e->advice.empty());
    if (!c.message_has.empty()) {
      EXPECT_NE(e->message.find(c.message_has), std::string::npos) << e->message;
    }
    EXPECT_EQ(requests.size(), static_cast<size_t>(c.attempts));
    return;
  }
  const auto* r = std::get_if<Reply>(&result);
  ASSERT_NE(r, nullptr) << std::get<ProviderError>(result).message;
  if (c.answer) {
    EXPECT_EQ(r->answer, *c.answer);
  } else {
    EXPECT_EQ(r->answer.rfind(c.answer_prefix, 0), 0u) << r->answer.substr(0, 200);
    ASSERT_GE(r->answer.size(), c.answer_suffix.size());
    EXPECT_EQ(r->answer.substr(r->answer.size() - c.answer_suffix.size()), c.answer_suffix);
    EXPECT_EQ(r->answer.size(), c.answer_bytes);
  }
  if (c.reasoning) {
    EXPECT_EQ(r->reasoning, *c.reasoning);
  } else {
    EXPECT_FALSE(r->reasoning.empty());
  }
  EXPECT_EQ(r->finish_reason, c.finish);
  EXPECT_EQ(r->attempts, c.attempts);
  EXPECT_EQ(requests.size(), static_cast<size_t>(c.attempts));
  ASSERT_TRUE(c.usage);
  EXPECT_EQ(r->usage.input_tokens, c.usage->input);
  EXPECT_EQ(r->usage.cached_input_tokens, c.usage->cached);
  EXPECT_EQ(r->usage.output_tokens, c.usage->output);
  EXPECT_EQ(r->usage.reasoning_tokens, c.usage->reasoning);
  EXPECT_EQ(to_string(r->usage.reasoning_source), to_string(c.usage->source));
}

std::string case_name(const ::testing::TestParamInfo<Case>& c) {
  std::string n = c.param.name;
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Wire, FixtureReplay, ::testing::ValuesIn(cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Review, FixtureReplay, ::testing::ValuesIn(review_cases()), case_name);

TEST(FixtureReplayCoverage, EveryFixtureIsReplayed) {
  const std::string wire = wire_dir();
  if (wire.empty()) GTEST_SKIP() << skip_message();
  std::set<std::string> used;
  for (const auto& c : cases())
    for (const auto& s : c.steps) used.insert(s.fixture);
  for (const auto& c : review_cases())
    for (const auto& s : c.steps)
      if (s.fixture.rfind(kReview, 0) != 0) used.insert(s.fixture);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(wire + "/fixtures")) {
    ++files;
    EXPECT_TRUE(used.count(entry.path().filename().string())) << entry.path().filename() << " is not replayed";
  }
  EXPECT_EQ(files, used.size()) << "a case names a fixture that does not exist";
}

TEST(FixtureReplayCoverage, EveryReviewBodyIsReplayed) {
  std::set<std::string> used;
  for (const auto& c : review_cases())
    for (const auto& s : c.steps)
      if (s.fixture.rfind(kReview, 0) == 0) used.insert(s.fixture.substr(kReview.size()));
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(review_dir())) {
    const std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    ++files;
    EXPECT_TRUE(used.count(name)) << name << " is not replayed";
  }
  EXPECT_EQ(files, used.size()) << "a review case names a body that does not exist";
}

}  // namespace
}  // namespace kf::providers
