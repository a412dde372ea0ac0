#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "providers/model_config.h"

namespace kf::providers {
namespace {

const std::string kSource = KFORGE_TEST_SOURCE_DIR;
std::string fixture(const std::string& name) { return kSource + "/tests/mockserver/fixtures/" + name; }

std::vector<std::string> shipped_configs() {
  std::vector<std::string> files;
  for (const char* dir : {"/configs", "/configs/demo"}) {
    for (const char* name : {"openai-o-series-responses", "anthropic-claude-thinking", "qwen-coder-vllm",
                             "deepseek-r1-sglang", "gpt-oss-ollama"}) {
      files.push_back(kSource + dir + "/" + name + ".json");
    }
  }
  return files;
}

bool has_problem(const std::vector<ConfigProblem>& problems, const std::string& field, const std::string& reason_part) {
  for (const auto& p : problems) {
    if (p.field == field && p.reason.find(reason_part) != std::string::npos) return true;
  }
  return false;
}

std::string dump(const std::vector<ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.file + ": " + p.field + ": " + p.reason + "\n";
  return out;
}

TEST(ModelConfig, AllTenShippedConfigsAreValid) {
  auto files = shipped_configs();
  ASSERT_EQ(files.size(), 10u);
  for (const auto& f : files) {
    auto problems = validate_model_config_file(f);
    EXPECT_TRUE(problems.empty()) << dump(problems);
    auto config = load_model_config(f);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->loop.turns, 5) << f;
    EXPECT_EQ(config->loop.samples, 1) << f;
    EXPECT_FALSE(config->model.empty());
    EXPECT_EQ(config->source_path, f);
  }
}

TEST(ModelConfig, LoadsFieldsAndDefaults) {
  auto c = load_model_config(kSource + "/configs/anthropic-claude-thinking.json");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->provider, ProviderKind::anthropic);
  EXPECT_EQ(c->api_key_env, "ANTHROPIC_API_KEY");
  EXPECT_EQ(*c->generation.thinking_budget_tokens, 16000);
  EXPECT_FALSE(c->generation.temperature.has_value());
  EXPECT_DOUBLE_EQ(c->prices.cached_input, 0.30);
  EXPECT_EQ(c->name, "anthropic-claude-thinking");
  EXPECT_TRUE(c->raw.is_object());

  auto o = load_model_config(kSource + "/configs/qwen-coder-vllm.json");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->provider, ProviderKind::openai_compatible);
  EXPECT_EQ(*o->server, "vllm");
  EXPECT_EQ(o->api_key_env, "");
}

TEST(ModelConfig, ReasoningPriceDefaultsToOutputAndCachedToInput) {
  nlohmann::json doc = {{"provider", "openai-chat"},
                        {"base_url", "https://api.openai.com/v1"},
                        {"model", "gpt-4.1"},
                        {"prices", {{"input", 2.0}, {"output", 8.0}}}};
  auto path = std::filesystem::temp_directory_path() / ("kforge-config-test-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << doc.dump();
  }
  auto c = load_model_config(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->prices.reasoning, 8.0);
  EXPECT_DOUBLE_EQ(c->prices.cached_input, 2.0);
  EXPECT_EQ(c->generation.max_output_tokens, 8192);
  EXPECT_EQ(c->rate_limits.max_concurrent, 4);
}

TEST(ModelConfig, MaxServerWait) {
  auto write = [](const nlohmann::json& retry) {
    nlohmann::json doc = {{"provider", "gemini"},
                          {"base_url", "https://generativelanguage.googleapis.com/v1beta"},
                          {"model", "gemini-2.5-pro"},
                          {"retry", retry}};
    auto path = std::filesystem::temp_directory_path() / ("kforge-config-wait-" + std::to_string(::getpid()) + ".json");
    std::ofstream(path) << doc.dump();
    return path;
  };
  auto path = write({{"max_server_wait_s", 30}});
  auto c = load_model_config(path.string());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->retry.max_server_wait_s, 30);
  path = write(nlohmann::json::object());
  c = load_model_config(path.string());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->retry.max_server_wait_s, 900) << "the default";
  path = write({{"max_server_wait_s", -1}});
  EXPECT_TRUE(has_problem(validate_model_config_file(path.string()), "retry.max_server_wait_s", "must be >= 0"));
  std::filesystem::remove(path);
}

TEST(ModelConfig, BrokenFileReportsEveryProblem) {
  auto problems = validate_model_config_file(fixture("broken-types.json"));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"name", "must be a string"},
      {"provider", "unknown provider kind 'openai-chatty'"},
      {"base_url", "must start with http:// or https://"},
      {"api_key_env", "not an environment variable name"},
      {"model", "must not be empty"},
      {"colour", "unknown field"},
      {"generation.max_output_tokens", "must be > 0"},
      {"generation.temperature", "must be a number"},
      {"generation.top_p", "must be <= 1"},
      {"generation.reasoning_effort", "must be minimal, low, medium or high"},
      {"generation.stream", "must be true or false"},
      {"generation.seed", "unknown field"},
      {"timeouts.connect_s", "must be > 0"},
      {"timeouts.idle_s", "must not exceed timeouts.total_s"},
      {"retry.max_attempts", "must be >= 1"},
      {"retry.max_backoff_s", "must be >= retry.initial_backoff_s"},
      {"retry.multiplier", "must be >= 1"},
      {"retry.jitter", "must be <= 1"},
      {"rate_limits.requests_per_minute", "must be >= 0"},
      {"rate_limits.tokens_per_minute", "must be a number"},
      {"rate_limits.max_concurrent", "must be >= 1"},
      {"prices.input", "must be >= 0"},
      {"prices.output", "must be a number"},
      {"prices.bonus", "unknown field"},
      {"loop.turns", "must be >= 1"},
      {"loop.samples", "must be an integer"},
      {"loop.stop_at_first_correct", "must be true or false"},
      {"loop.keep_last_attempts", "must be >= 0"},
      {"prompt_overrides.system", "must be a file path"},
  };
  for (const auto& [field, reason] : expected) {
    EXPECT_TRUE(has_problem(problems, field, reason)) << "missing " << field << ": " << reason << "\ngot:\n"
                                                      << dump(problems);
  }
  EXPECT_EQ(problems.size(), expected.size()) << dump(problems);
  for (const auto& p : problems) {
    EXPECT_EQ(p.file, fixture("broken-types.json"));
    // A pasted key must never be echoed back.
    EXPECT_EQ(p.reason.find("sk-this-is"), std::string::npos) << p.reason;
  }
  auto loaded = load_model_config(fixture("broken-types.json"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("generation.top_p"), std::string::npos);
  EXPECT_EQ(loaded.error().message.find("sk-this-is"), std::string::npos);
}

TEST(ModelConfig, MissingRequiredFields) {
  auto problems = validate_model_config_file(fixture("missing-required.json"));
  for (const char* field : {"provider", "base_url", "model"}) {
    EXPECT_TRUE(has_problem(problems, field, "missing")) << field << "\n" << dump(problems);
  }
}

TEST(ModelConfig, AnthropicThinkingRules) {
  auto problems = validate_model_config_file(fixture("anthropic-bad-thinking.json"));
  EXPECT_TRUE(has_problem(problems, "generation.thinking_budget_tokens", "at least 1024")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "generation.reasoning_effort", "not used by provider anthropic")) << dump(problems);
  auto doc = nlohmann::json::parse(R"({"provider": "anthropic", "base_url": "https://a/v1", "model": "c",
      "generation": {"max_output_tokens": 2000, "thinking_budget_tokens": 4000, "temperature": 0.2}})");
  auto p2 = validate_model_config_json(doc, "inline.json");
  EXPECT_TRUE(has_problem(p2, "generation.thinking_budget_tokens", "less than generation.max_output_tokens"))
      << dump(p2);
  auto w = model_config_warnings(doc, "inline.json");
  EXPECT_TRUE(has_problem(w, "generation.temperature", "temperature 1")) << dump(w);
}

TEST(ModelConfig, YardstickKeys) {
  auto ok = nlohmann::json::parse(R"({"provider": "openai-chat", "base_url": "https://a/v1", "model": "m",
      "loop": {"stop_at_peak_fraction": 0.8}, "evaluation": {"baseline": "compile"}})");
  EXPECT_TRUE(validate_model_config_json(ok, "inline.json").empty())
      << dump(validate_model_config_json(ok, "inline.json"));
  auto path =
      std::filesystem::temp_directory_path() / ("kforge_yardstick_keys_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << ok.dump();
  auto c = load_model_config(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->loop.stop_at_peak_fraction.has_value());
  EXPECT_DOUBLE_EQ(*c->loop.stop_at_peak_fraction, 0.8);
  EXPECT_EQ(c->baseline, "compile");
  auto bad = nlohmann::json::parse(R"({"provider": "openai-chat", "base_url": "https://a/v1", "model": "m",
      "loop": {"stop_at_peak_fraction": 0}, "evaluation": {"baseline": "cudnn"}})");
  auto problems = validate_model_config_json(bad, "inline.json");
  EXPECT_TRUE(has_problem(problems, "loop.stop_at_peak_fraction", "")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "evaluation.baseline", "eager")) << dump(problems);
  auto over = nlohmann::json::parse(R"({"provider": "openai-chat", "base_url": "https://a/v1", "model": "m",
      "loop": {"stop_at_peak_fraction": 1.5}})");
  EXPECT_TRUE(has_problem(validate_model_config_json(over, "inline.json"), "loop.stop_at_peak_fraction", ""));
}

TEST(ModelConfig, SearchStrategyKeysNestInsideLoop) {
  auto ok = nlohmann::json::parse(R"({"provider": "openai-chat", "base_url": "https://a/v1", "model": "m",
      "loop": {"strategy": "evolve", "rounds": 6, "seed": 3, "beam": {"width": 2},
               "evolve": {"islands": 3, "diversity": 0.5, "inspirations": 1, "migrate_every": 0},
               "stop": {"plateau_evaluations": 4}, "budget": {"evaluations": 20, "usd": 1.5}}})");
  EXPECT_TRUE(validate_model_config_json(ok, "inline.json").empty())
      << dump(validate_model_config_json(ok, "inline.json"));
  auto path = std::filesystem::temp_directory_path() / ("kforge_search_keys_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << ok.dump();
  auto c = load_model_config(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->loop.strategy, "evolve");
  EXPECT_EQ(c->loop.rounds, 6);
  EXPECT_EQ(c->loop.beam.width, 2);
  EXPECT_EQ(c->loop.beam.children, 1);  // default
  EXPECT_EQ(c->loop.evolve.islands, 3);
  EXPECT_DOUBLE_EQ(c->loop.evolve.diversity, 0.5);
  EXPECT_EQ(c->loop.evolve.migrate_every, 0);
  EXPECT_EQ(c->loop.plateau_evaluations, 4);
  EXPECT_EQ(c->loop.budget.evaluations, 20);
  EXPECT_EQ(c->loop.budget.usd, 1.5);
  EXPECT_FALSE(c->loop.budget.tokens);
  auto bad = nlohmann::json::parse(R"({"provider": "openai-chat", "base_url": "https://a/v1", "model": "m",
      "loop": {"strategy": "anneal", "beam": {"widht": 2}, "evolve": 3, "budget": {"usd": 0},
               "stop": {"plateau": 2}}})");
  auto problems = validate_model_config_json(bad, "inline.json");
  EXPECT_TRUE(has_problem(problems, "loop.strategy", "refine, best_of_n, beam, evolve")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "loop.beam.widht", "unknown field")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "loop.evolve", "must be an object")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "loop.budget.usd", "> 0")) << dump(problems);
  EXPECT_TRUE(has_problem(problems, "loop.stop.plateau", "unknown field")) << dump(problems);
}

TEST(ModelConfig, TemperatureOnReasoningModelIsOnlyAWarning) {
  const std::string f = fixture("reasoning-temperature-warning.json");
  EXPECT_TRUE(validate_model_config_file(f).empty());
  auto doc = nlohmann::json::parse(std::ifstream(f));
  auto w = model_config_warnings(doc, f);
  EXPECT_TRUE(has_problem(w, "generation.temperature", "reasoning models reject temperature")) << dump(w);
  EXPECT_TRUE(load_model_config(f).ok());
}

TEST(ModelConfig, NotJsonIsOneProblemNamingTheFile) {
  auto problems = validate_model_config_file(fixture("not-json.json"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, fixture("not-json.json"));
  EXPECT_NE(problems[0].reason.find("not valid JSON"), std::string::npos);
  auto missing = validate_model_config_file(fixture("does-not-exist.json"));
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].reason.find("cannot read"), std::string::npos);
}

TEST(ModelConfig, ProviderKindStrings) {
  for (auto k : {ProviderKind::openai_chat, ProviderKind::openai_responses, ProviderKind::anthropic,
                 ProviderKind::gemini, ProviderKind::openai_compatible}) {
    EXPECT_EQ(provider_kind_from_string(to_string(k)), k);
  }
  EXPECT_FALSE(provider_kind_from_string("openai").has_value());
}

TEST(ModelConfig, BaseUrlEnvironmentSubstitution) {
  const std::string demo = kSource + "/configs/demo/qwen-coder-vllm.json";
  ::unsetenv("KFORGE_MOCK_URL");
  auto d = load_model_config(demo);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->base_url, "http://127.0.0.1:8089/v1");
  ::setenv("KFORGE_MOCK_URL", "http://127.0.0.1:4242", 1);
  auto e = load_model_config(demo);
  ::unsetenv("KFORGE_MOCK_URL");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->base_url, "http://127.0.0.1:4242/v1");
  EXPECT_EQ(e->raw["base_url"], "${KFORGE_MOCK_URL:-http://127.0.0.1:8089}/v1");  // the file as written

  auto unset = validate_model_config_file(fixture("env-no-default.json"));
  EXPECT_TRUE(has_problem(unset, "base_url", "KFORGE_TEST_UNSET_VARIABLE_XYZ is not set")) << dump(unset);
  EXPECT_FALSE(expand_env_references("${1BAD}").ok());
  EXPECT_FALSE(expand_env_references("${UNCLOSED").ok());
}

TEST(ModelConfig, CandidateFormat) {
  auto plain = load_model_config(kSource + "/configs/qwen-coder-vllm.json");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->candidate_format, CandidateFormat::kf_forward);  // the default
  for (const auto& name : candidate_format_names()) EXPECT_EQ(to_string(*candidate_format_from_string(name)), name);

  nlohmann::json doc = {{"provider", "openai-chat"},
                        {"base_url", "https://api.openai.com/v1"},
                        {"model", "gpt-4.1"},
                        {"candidate_format", "kernelbench"}};
  auto bad = validate_model_config_json(doc, "x.json");
  EXPECT_TRUE(has_problem(bad, "candidate_format",
                          "must be one of kf_forward, kernelbench-cuda, kernelbench-triton (got 'kernelbench')"))
      << dump(bad);
  doc["candidate_format"] = 1;
  EXPECT_TRUE(has_problem(validate_model_config_json(doc, "x.json"), "candidate_format", "must be a string"));
}

// The demo pair compares the two formats on one model: the files differ in name and candidate_format only.
TEST(ModelConfig, DemoKernelBenchPairDiffersOnlyInTheFormat) {
  auto kf = load_model_config(kSource + "/configs/demo-kernelbench/qwen-kf.json");
  auto kb = load_model_config(kSource + "/configs/demo-kernelbench/qwen-kb.json");
  ASSERT_TRUE(kf.ok()) << kf.error().message;
  ASSERT_TRUE(kb.ok()) << kb.error().message;
  EXPECT_EQ(kf->candidate_format, CandidateFormat::kf_forward);
  EXPECT_EQ(kb->candidate_format, CandidateFormat::kernelbench_cuda);
  nlohmann::json a = kf->raw, b = kb->raw;
  for (auto* j : {&a, &b}) {
    j->erase("name");
    j->erase("candidate_format");
  }
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace kf::providers
