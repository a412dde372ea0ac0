#include <gtest/gtest.h>

#include "providers/provider.h"

namespace kf::providers {
namespace {

TEST(Cost, EachTokenClassAtItsPrice) {
  Prices p;
  p.input = 2;  // per million
  p.cached_input = 0.5;
  p.output = 8;
  p.reasoning = 10;
  Usage u;
  u.input_tokens = 1'000'000;  // of which cached:
  u.cached_input_tokens = 400'000;
  u.output_tokens = 100'000;
  u.reasoning_tokens = 50'000;
  EXPECT_DOUBLE_EQ(cost_usd(u, p), 0.6 * 2 + 0.4 * 0.5 + 0.1 * 8 + 0.05 * 10);
}

TEST(Cost, CachedNeverExceedsInput) {
  Prices p;
  p.input = 1;
  p.cached_input = 100;
  Usage u;
  u.input_tokens = 10;
  u.cached_input_tokens = 1000;  // a server reporting nonsense must not make the cost explode
  EXPECT_DOUBLE_EQ(cost_usd(u, p), 10 * 100 / 1e6);
}

TEST(ProviderErrorKind, NamesAreStable) {
  EXPECT_EQ(to_string(ProviderErrorKind::rate_limit), "rate_limit");
  EXPECT_EQ(to_string(ProviderErrorKind::output_limit), "output_limit");
  EXPECT_EQ(to_string(ProviderErrorKind::content_filter), "content_filter");
}

TEST(MakeProvider, MissingKeyVariableIsAnActionableError) {
  ModelConfig c;
  c.name = "x";
  c.base_url = "http://127.0.0.1:1";
  c.model = "m";
  c.api_key_env = "KFORGE_TEST_SURELY_UNSET_KEY_VAR";
  auto p = make_provider(c);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("export KFORGE_TEST_SURELY_UNSET_KEY_VAR="), std::string::npos);
}

TEST(MakeProvider, ConnectionRefusedIsANetworkError) {
  ModelConfig c;
  c.name = "refused";
  c.base_url = "http://127.0.0.1:1/v1";  // port 1: nothing listens there
  c.model = "m";
  c.retry.max_attempts = 1;
  auto p = make_provider(c);
  ASSERT_TRUE(p.ok());
  auto r = (*p)->complete({{"user", "hi"}});
  ASSERT_TRUE(std::holds_alternative<ProviderError>(r));
  const auto& e = std::get<ProviderError>(r);
  EXPECT_EQ(e.kind, ProviderErrorKind::network) << e.message;
  EXPECT_EQ(e.attempts, 1);
}

}  // namespace
}  // namespace kf::providers
