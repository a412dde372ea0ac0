// The classification table of docs/providers.md, row by row: (API family, status, headers, body) ->
// (kind, retried, cause, server wait). Bodies are the real APIs' shapes (see ../shared/wire/README.md).
#include "providers/error_classifier.h"

#include "providers/api_common.h"

#include <gtest/gtest.h>

#include <ostream>

namespace kf::providers {
namespace {

struct Row {
  const char* name;
  ApiFamily family;
  int status;
  HeaderMap headers;
  const char* body;
  ProviderErrorKind kind;
  bool retryable;
  ErrorCause cause;
  std::optional<double> wait;
};
void PrintTo(const Row& r, std::ostream* os) { *os << r.name; }

using K = ProviderErrorKind;
using C = ErrorCause;
constexpr auto OA = ApiFamily::openai;
constexpr auto AN = ApiFamily::anthropic;
constexpr auto GE = ApiFamily::gemini;

// clang-format off
const Row kRows[] = {
    // --- OpenAI (Chat, Responses, compatible servers)
    {"oc_429_tpm", OA, 429, {},
     R"({"error":{"message":"Rate limit reached for default-gpt-3.5-turbo in organization org-x on tokens per min. Limit: 60000 / min. Please try again in 1ms. Contact us through our help center at help.openai.com if you continue to have issues.","type":"tokens","param":null,"code":"rate_limit_exceeded"}})",
     K::rate_limit, true, C::none, 0.001},
    {"oc_429_rpd_billing_link_is_a_rate_limit", OA, 429, {},
     R"({"error":{"message":"Rate limit reached for gpt-4-turbo-preview in organization org-x on requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s. Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
     K::rate_limit, true, C::none, 432},
    {"oc_429_retry_after_ms_header_wins", OA, 429, {{"retry-after-ms", "1500"}, {"retry-after", "2"}},
     R"({"error":{"message":"Rate limit reached ... Please try again in 20s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}})",
     K::rate_limit, true, C::none, 1.5},
    {"oc_429_insufficient_quota", OA, 429, {},
     R"({"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})",
     K::quota, false, C::out_of_credit, std::nullopt},
    {"oc_429_quota_wording_without_code", OA, 429, {},
     R"({"error":{"message":"You exceeded your current quota, please check your plan and billing details."}})",
     K::quota, false, C::out_of_credit, std::nullopt},
    {"oc_401_invalid_key", OA, 401, {},
     R"({"error":{"message":"Incorrect API key provided: sk-wire-***cdef.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})",
     K::auth, false, C::key_invalid, std::nullopt},
    {"oc_403_region", OA, 403, {},
     R"({"error":{"message":"Country, region, or territory not supported","type":"request_forbidden","param":null,"code":"unsupported_country_region_territory"}})",
     K::auth, false, C::none, std::nullopt},
    {"oc_400_context_length", OA, 400, {},
     R"({"error":{"message":"Input tokens exceed the configured limit of 272000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})",
     K::bad_request, false, C::context_length, std::nullopt},
    {"oc_404_model", OA, 404, {},
     R"({"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}})",
     K::bad_request, false, C::model_not_found, std::nullopt},
    {"oc_500", OA, 500, {},
     R"({"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}})",
     K::server, true, C::none, std::nullopt},
    {"oc_503_overloaded", OA, 503, {},
     R"({"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}})",
     K::server, true, C::none, std::nullopt},
    {"oc_408_409_are_retried", OA, 409, {}, R"({"error":{"message":"conflict","type":"conflict"}})", K::server, true,
     C::none, std::nullopt},
    {"openrouter_402_credits", OA, 402, {},
     R"({"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits"}})",
     K::quota, false, C::out_of_credit, std::nullopt},
    {"x_should_retry_false_wins", OA, 503, {{"x-should-retry", "false"}}, R"({"error":{"message":"busy","type":"server_error"}})",
     K::server, false, C::none, std::nullopt},
    {"proxy_html_502", OA, 502, {}, "<html><body>Bad gateway</body></html>", K::server, true, C::none, std::nullopt},
    {"midstream_server_error", OA, 0, {},
     R"({"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}})",
     K::server, true, C::none, std::nullopt},
    {"responses_error_event_unknown_code", OA, 0, {},
     R"({"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":2})",
     K::server, true, C::none, std::nullopt},
    {"openrouter_midstream_numeric_429", OA, 0, {}, R"({"error":{"code":429,"message":"Provider rate limited"}})",
     K::rate_limit, true, C::none, std::nullopt},
    // --- Anthropic
    {"an_429", AN, 429, {{"retry-after", "7"}},
     R"({"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your organization's rate limit of 30,000 input tokens per minute."},"request_id":"req_1"})",
     K::rate_limit, true, C::none, 7},
    {"an_529", AN, 529, {}, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"})",
     K::server, true, C::none, std::nullopt},
    {"an_504_timeout_error", AN, 504, {}, R"({"type":"error","error":{"type":"timeout_error","message":"Request timed out"}})",
     K::server, true, C::none, std::nullopt},
    {"an_401", AN, 401, {}, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})",
     K::auth, false, C::key_invalid, std::nullopt},
    {"an_403", AN, 403, {}, R"({"type":"error","error":{"type":"permission_error","message":"not allowed"}})", K::auth,
     false, C::none, std::nullopt},
    {"an_400_credit_balance", AN, 400, {},
     R"({"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}})",
     K::quota, false, C::out_of_credit, std::nullopt},
    {"an_402_billing_error", AN, 402, {}, R"({"type":"error","error":{"type":"billing_error","message":"billing issue"}})",
     K::quota, false, C::out_of_credit, std::nullopt},
    {"an_400_prompt_too_long", AN, 400, {},
     R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 205429 tokens > 200000 maximum"}})",
     K::bad_request, false, C::context_length, std::nullopt},
    {"an_413", AN, 413, {}, R"({"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}})",
     K::bad_request, false, C::request_too_large, std::nullopt},
    {"an_404", AN, 404, {}, R"({"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}})",
     K::bad_request, false, C::model_not_found, std::nullopt},
    {"an_stream_error_overloaded", AN, 0, {}, R"({"type": "error", "error": {"type": "api_error", "message": "Overloaded"}})",
     K::server, true, C::none, std::nullopt},
    // --- Gemini
    {"ge_429_per_minute_retry_info", GE, 429, {},
     R"({"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_input_token_count","quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaValue":"250000"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"}]}})",
     K::rate_limit, true, C::none, 26},
    {"ge_429_per_day_is_final", GE, 429, {},
     R"({"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaValue":"250"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"43s"}]}})",
     K::quota, false, C::daily_quota, 43},
    {"ge_429_zero_quota_is_final", GE, 429, {},
     R"({"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaValue":"0"}]}]}})",
     K::quota, false, C::zero_quota, std::nullopt},
    {"ge_429_without_details", GE, 429, {}, R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}})",
     K::rate_limit, true, C::none, std::nullopt},
    {"ge_400_api_key_invalid_is_auth", GE, 400, {},
     R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}]}})",
     K::auth, false, C::key_invalid, std::nullopt},
    {"ge_403_permission_denied", GE, 403, {}, R"({"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}})",
     K::auth, false, C::none, std::nullopt},
    {"ge_400_failed_precondition_billing", GE, 400, {},
     R"({"error":{"code":400,"message":"Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.","status":"FAILED_PRECONDITION"}})",
     K::quota, false, C::billing_required, std::nullopt},
    {"ge_400_invalid_argument", GE, 400, {}, R"({"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}})",
     K::bad_request, false, C::none, std::nullopt},
    {"ge_404", GE, 404, {}, R"({"error":{"code":404,"message":"models/gemini-9 is not found","status":"NOT_FOUND"}})",
     K::bad_request, false, C::model_not_found, std::nullopt},
    {"ge_503", GE, 503, {}, R"({"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}})",
     K::server, true, C::none, std::nullopt},
    {"ge_504", GE, 504, {}, R"({"error":{"code":504,"message":"Deadline exceeded","status":"DEADLINE_EXCEEDED"}})",
     K::server, true, C::none, std::nullopt},
    {"ge_midstream_unavailable", GE, 0, {}, R"({"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}})",
     K::server, true, C::none, std::nullopt},
};
// clang-format on

class ClassificationTable : public ::testing::TestWithParam<Row> {};

TEST_P(ClassificationTable, MatchesTheDocumentedRow) {
  const Row& r = GetParam();
  const ErrorClass c = r.status ? classify_http_error(r.family, r.status, r.headers, r.body, 0)
                                : classify_error_object(r.family, nlohmann::json::parse(r.body), 0);
  EXPECT_EQ(to_string(c.kind), to_string(r.kind)) << c.detail;
  EXPECT_EQ(c.retryable, r.retryable) << c.detail;
  EXPECT_EQ(to_string(c.cause), to_string(r.cause)) << c.detail;
  ASSERT_EQ(c.server_wait_s.has_value(), r.wait.has_value()) << c.detail;
  if (r.wait) {
    EXPECT_NEAR(*c.server_wait_s, *r.wait, 1e-9);
  }
  EXPECT_FALSE(c.detail.empty());
}

std::string row_name(const ::testing::TestParamInfo<Row>& row) { return row.param.name; }

INSTANTIATE_TEST_SUITE_P(Rows, ClassificationTable, ::testing::ValuesIn(kRows), row_name);

TEST(Durations, ProtobufDurationStrings) {
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("26s"), 26);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("1.000340s"), 1.00034);
  EXPECT_DOUBLE_EQ(*parse_duration_seconds("0.5s"), 0.5);
  EXPECT_FALSE(parse_duration_seconds("26"));
  EXPECT_FALSE(parse_duration_seconds("-1s"));
  EXPECT_FALSE(parse_duration_seconds("soon"));
}

TEST(Durations, OpenAiTryAgainIn) {
  EXPECT_DOUBLE_EQ(*parse_try_again_in("Please try again in 7m12s. Visit"), 432);
  EXPECT_DOUBLE_EQ(*parse_try_again_in("Please try again in 1ms."), 0.001);
  EXPECT_DOUBLE_EQ(*parse_try_again_in("Please try again in 20.5s."), 20.5);
  EXPECT_DOUBLE_EQ(*parse_try_again_in("Please try again in 1h2m3s."), 3723);
  EXPECT_FALSE(parse_try_again_in("Please try again later."));
  EXPECT_FALSE(parse_try_again_in(""));
}

TEST(Detail, NamesStatusTypeAndCode) {
  const auto c = classify_http_error(ApiFamily::openai, 429, {},
                                     R"({"error":{"message":"m","type":"requests","code":"rate_limit_exceeded"}})", 0);
  EXPECT_NE(c.detail.find("HTTP 429"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("requests/rate_limit_exceeded"), std::string::npos) << c.detail;
}

// Usage figures are hostile input too: out-of-range or non-numeric counts are not reported figures.
TEST(UsageCounts, OnlyNumbersInRangeAreReported) {
  const auto u =
      nlohmann::json::parse(R"({"a": 3, "b": 2.0, "c": 1e300, "d": "7", "e": 18446744073709551615, "f": null})");
  EXPECT_EQ(api::reported_count(u, "a"), 3);
  EXPECT_EQ(api::reported_count(u, "b"), 2);
  for (const char* key : {"c", "d", "e", "f", "missing"}) EXPECT_FALSE(api::reported_count(u, key)) << key;
  EXPECT_EQ(api::int64(u, "c"), 0);
}

TEST(UsageCounts, SplitIsReportedEstimatedOrNone) {
  Usage usage;
  api::split_output(120, 67, 10, 0, usage);
  EXPECT_EQ(usage.output_tokens, 53);
  EXPECT_EQ(usage.reasoning_tokens, 67);
  EXPECT_EQ(usage.reasoning_source, Usage::ReasoningSource::reported);
  api::split_output(40, std::nullopt, 4, 12, usage);
  EXPECT_EQ(usage.reasoning_tokens, 30);
  EXPECT_EQ(usage.reasoning_source, Usage::ReasoningSource::estimated);
  api::split_output(40, std::nullopt, 4, 0, usage);
  EXPECT_EQ(usage.output_tokens, 40);
  EXPECT_EQ(usage.reasoning_source, Usage::ReasoningSource::none);
  api::split_output(5, 900, 1, 1, usage);  // a reported figure above the total is capped
  EXPECT_EQ(usage.reasoning_tokens, 5);
  EXPECT_EQ(usage.output_tokens, 0);
}

}  // namespace
}  // namespace kf::providers
