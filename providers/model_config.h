#pragma once
// A model configuration: which endpoint to talk to, how, at what price, and the agent-loop settings
// that go with it. Loaded from a JSON file (configs/*.json); see docs/configuration.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::providers {

enum class ProviderKind { openai_chat, openai_responses, anthropic, gemini, openai_compatible };

// "openai-chat" <-> ProviderKind::openai_chat, etc.
std::string to_string(ProviderKind kind);
std::optional<ProviderKind> provider_kind_from_string(const std::string& text);

// What the agent asks the model for and how it reads the answer (candidate_format, docs/configuration.md):
// kforge's kf_forward ABI, or a KernelBench solution file (ModelNew) with load_inline or Triton kernels.
enum class CandidateFormat { kf_forward, kernelbench_cuda, kernelbench_triton };

// "kf_forward", "kernelbench-cuda", "kernelbench-triton".
std::string to_string(CandidateFormat format);
std::optional<CandidateFormat> candidate_format_from_string(const std::string& text);
const std::vector<std::string>& candidate_format_names();

struct GenerationSettings {
  int64_t max_output_tokens = 8192;
  std::optional<double> temperature;  // omitted from the request when unset
  std::optional<double> top_p;
  std::optional<std::string> reasoning_effort;    // "minimal"|"low"|"medium"|"high" (OpenAI-style)
  std::optional<int64_t> thinking_budget_tokens;  // Anthropic extended thinking, Gemini thinkingBudget
  bool stream = true;
};

struct Timeouts {
  double connect_s = 10;
  double idle_s = 120;   // longest silence allowed between bytes of a response
  double total_s = 900;  // whole request, retries excluded
};

struct RetryPolicy {
  int max_attempts = 6;  // including the first
  double initial_backoff_s = 1.0;
  double max_backoff_s = 60.0;
  double multiplier = 2.0;
  double jitter = 0.25;  // +/- fraction of the computed backoff
  // Longest server-requested wait (retry-after, Gemini retryDelay, "try again in ...") that is honoured;
  // a longer one ends the call with an error saying so instead of sleeping.
  double max_server_wait_s = 900;
};

struct RateLimits {
  double requests_per_minute = 0;  // 0 = unlimited
  double tokens_per_minute = 0;    // estimated input + max output tokens per request
  int max_concurrent = 4;
};

// USD per million tokens. Reasoning tokens are billed at `reasoning` (defaults to `output` when the
// file omits it); cached input tokens at `cached_input` instead of `input`.
struct Prices {
  double input = 0;
  double output = 0;
  double reasoning = 0;
  double cached_input = 0;
};

// The search of each (problem, sample): its strategy and parameters, its stop rules and per-unit budgets
// (docs/campaigns.md, "Search strategies"; agent/search/ runs them).
struct LoopSettings {
  int turns = 5;
  int samples = 1;
  bool stop_at_first_correct = true;
  int keep_last_attempts = 0;  // 0 = keep the whole conversation
  // End a sample once a correct kernel reaches this fraction of the roofline (0-1]; unset: never.
  std::optional<double> stop_at_peak_fraction;

  std::string strategy = "refine";  // refine | best_of_n | beam | evolve
  std::optional<int> rounds;        // rounds of a search strategy; unset: `turns`
  int64_t seed = 0;                 // evolve's parent draws
  struct BestOfN {
    int n = 4;  // independent first turns in round 1
  } best_of_n;
  struct Beam {
    int width = 3;        // the k best correct kernels kept
    int children = 1;     // asks per kept kernel and round
    bool diverse = true;  // one place per kernel structure; a new structure followed up once
  } beam;
  struct Evolve {
    int islands = 2;
    int population = 4;       // kernels an island keeps: the fastest of each feature, best first
    int children = 2;         // asks per island and round
    int tournament = 3;       // members drawn per parent choice
    double diversity = 0.25;  // weight of a member's rarity against its speedup in the tournament
    int inspirations = 2;     // other strong kernels shown beside the parent (0-2)
    int migrate_every = 3;    // rounds between migrations of each island's best to the next (0: never)
  } evolve;
  std::optional<int> plateau_evaluations;  // loop.stop.plateau_evaluations
  struct Budget {                          // loop.budget.*: per (problem, sample)
    std::optional<int> evaluations;
    std::optional<int64_t> tokens;
    std::optional<double> usd;
    std::optional<double> gpu_seconds;
  } budget;
};
const std::vector<std::string>& loop_strategy_names();

struct ModelConfig {
  std::string name;         // configuration name, used in reports
  std::string source_path;  // file it was loaded from ("" when built in code)
  ProviderKind provider = ProviderKind::openai_chat;
  std::string base_url;     // e.g. https://api.openai.com/v1
  std::string api_key_env;  // environment variable holding the key; "" = no key (local servers)
  std::string model;
  GenerationSettings generation;
  Timeouts timeouts;
  RetryPolicy retry;
  RateLimits rate_limits;
  Prices prices;
  LoopSettings loop;
  // evaluation.allow_reduced_precision: TF32/fp16/bf16 arithmetic accepted on fp32 problems (the evaluator's
  // precision trial only flags it). A campaign's configurations must agree (they share one evaluator).
  bool allow_reduced_precision = false;
  // evaluation.baseline: the primary baseline of this configuration's speedups (fast_p, "verified"):
  // eager | compile (docs/evaluator.md, "Yardsticks").
  std::string baseline = "eager";
  // feedback.ncu: a correct kernel's feedback carries Nsight Compute's figures of it, gathered by a profiling
  // run of its own after the verdict (cuda backend, ncu installed; docs/evaluator.md, "Profile feedback").
  // A campaign's configurations must agree (they share one evaluator pool).
  bool feedback_ncu = false;
  CandidateFormat candidate_format = CandidateFormat::kf_forward;
  std::string raw_log_dir;            // "" = no raw exchange log
  std::optional<std::string> server;  // openai-compatible: "vllm"|"sglang"|"ollama"|"llamacpp"|"deepseek"|"openrouter"
  nlohmann::json prompt_overrides = nlohmann::json::object();  // template name -> file path
  nlohmann::json raw;                                          // the file as loaded, for hashing and the corpus
};

// One problem found in a configuration file.
struct ConfigProblem {
  std::string file;
  std::string field;  // JSON pointer-like path, e.g. "rate_limits.max_concurrent"
  std::string reason;
};

// Parses and validates; on failure the error message lists every problem (file, field, reason).
Result<ModelConfig> load_model_config(const std::string& path);
// Every problem in the file; empty when it is valid.
std::vector<ConfigProblem> validate_model_config_file(const std::string& path);
// Validates an already-parsed document (file is used for messages only).
std::vector<ConfigProblem> validate_model_config_json(const nlohmann::json& doc, const std::string& file);
// Advice that does not make a file invalid (e.g. temperature on a model that rejects it); load_model_config
// logs these as warnings and `kforge configs validate` prints them.
std::vector<ConfigProblem> model_config_warnings(const nlohmann::json& doc, const std::string& file);
// Replaces ${NAME} and ${NAME:-default} with environment values (used for base_url, e.g.
// "${KFORGE_MOCK_URL:-http://127.0.0.1:8089}/v1"); fails when NAME is unset and has no default.
Result<std::string> expand_env_references(const std::string& text);

}  // namespace kf::providers
