#include "providers/model_config.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/files.h"
#include "core/log.h"

namespace kf {

std::string to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::openai_chat: return "openai-chat";
    case ProviderKind::openai_responses: return "openai-responses";
    case ProviderKind::anthropic: return "anthropic";
    case ProviderKind::gemini: return "gemini";
    case ProviderKind::openai_compatible: return "openai-compatible";
  }
  return "unknown";
}

std::optional<ProviderKind> provider_kind_from_string(const std::string& text) {
  for (ProviderKind k : {ProviderKind::openai_chat, ProviderKind::openai_responses, ProviderKind::anthropic,
                         ProviderKind::gemini, ProviderKind::openai_compatible}) {
    if (to_string(k) == text) return k;
  }
  return std::nullopt;
}

Result<std::string> expand_env_references(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = text.find("${", pos);
    if (start == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, start - pos);
    size_t end = text.find('}', start);
    if (end == std::string::npos) {
      return make_error("config.env", "unterminated ${…} reference: write ${NAME} or ${NAME:-default}");
    }
    std::string inner = text.substr(start + 2, end - start - 2);
    std::string name = inner;
    std::optional<std::string> fallback;
    if (size_t sep = inner.find(":-"); sep != std::string::npos) {
      name = inner.substr(0, sep);
      fallback = inner.substr(sep + 2);
    }
    bool valid_name = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) valid_name = valid_name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!valid_name) return make_error("config.env", "'${" + inner + "}' does not name an environment variable");
    const char* value = std::getenv(name.c_str());
    if (value && *value) {
      out += value;
    } else if (fallback) {
      out += *fallback;
    } else {
      return make_error("config.env", "environment variable " + name +
                                          " is not set: export it, or write ${" + name + ":-default} in the file");
    }
    pos = end + 1;
  }
  return out;
}

namespace {

using nlohmann::json;

const std::set<std::string> kServers = {"vllm", "sglang", "ollama", "llamacpp", "deepseek", "openrouter"};
const std::set<std::string> kEfforts = {"minimal", "low", "medium", "high"};

// Walks a configuration document once, collecting every problem and warning.
class Checker {
 public:
  Checker(const json& doc, std::string file) : doc_(doc), file_(std::move(file)) {}

  void run() {
    if (!doc_.is_object()) {
      problem("", "the file must hold a JSON object (see docs/configuration.md)");
      return;
    }
    known(doc_, "", {"name", "description", "provider", "base_url", "api_key_env", "model", "server", "generation",
                     "timeouts", "retry", "rate_limits", "prices", "loop", "evaluation", "raw_log_dir",
                     "prompt_overrides"});
    optional_string(doc_, "name");
    optional_string(doc_, "description");
    check_provider();
    check_base_url();
    check_api_key_env();
    if (auto m = required_string(doc_, "model"); m && m->empty()) problem("model", "must not be empty");
    check_server();
    check_generation();
    check_timeouts();
    check_retry();
    check_rate_limits();
    check_prices();
    check_loop();
    check_evaluation();
    optional_string(doc_, "raw_log_dir");
    check_prompt_overrides();
  }

  std::vector<ConfigProblem> problems;
  std::vector<ConfigProblem> warnings;

 private:
  void problem(const std::string& field, const std::string& reason) { problems.push_back({file_, field, reason}); }
  void warning(const std::string& field, const std::string& reason) { warnings.push_back({file_, field, reason}); }

  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }

  void known(const json& obj, const std::string& prefix, const std::set<std::string>& fields) {
    for (const auto& [key, value] : obj.items()) {
      (void)value;
      if (!fields.count(key)) {
        std::string list;
        for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
        problem(join(prefix, key), "unknown field (known here: " + list + ")");
      }
    }
  }

  // Returns the section object, or nullptr when absent or not an object (reported).
  const json* section(const char* key) {
    auto it = doc_.find(key);
    if (it == doc_.end()) return nullptr;
    if (!it->is_object()) {
      problem(key, "must be an object");
      return nullptr;
    }
    return &*it;
  }

  std::optional<std::string> optional_string(const json& obj, const std::string& key, const std::string& prefix = "") {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
      problem(join(prefix, key), "must be a string");
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  std::optional<std::string> required_string(const json& obj, const std::string& key) {
    if (!obj.contains(key) || obj.at(key).is_null()) {
      problem(key, "missing: this field is required");
      return std::nullopt;
    }
    return optional_string(obj, key);
  }

  // A number field; nullopt when absent/null or wrong (reported). `integer` demands a whole number.
  std::optional<double> number(const json& obj, const std::string& prefix, const std::string& key, bool integer,
                               std::optional<double> min_value, bool min_exclusive = false,
                               std::optional<double> max_value = std::nullopt) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    const std::string field = join(prefix, key);
    if (integer ? !it->is_number_integer() : !it->is_number()) {
      problem(field, integer ? "must be an integer" : "must be a number");
      return std::nullopt;
    }
    double v = it->get<double>();
    if (min_value && (min_exclusive ? v <= *min_value : v < *min_value)) {
      std::ostringstream r;
      r << "must be " << (min_exclusive ? "> " : ">= ") << *min_value << " (got " << it->dump() << ")";
      problem(field, r.str());
      return std::nullopt;
    }
    if (max_value && v > *max_value) {
      std::ostringstream r;
      r << "must be <= " << *max_value << " (got " << it->dump() << ")";
      problem(field, r.str());
      return std::nullopt;
    }
    return v;
  }

  void boolean(const json& obj, const std::string& prefix, const std::string& key) {
    auto it = obj.find(key);
    if (it != obj.end() && !it->is_boolean()) problem(join(prefix, key), "must be true or false");
  }

  void check_provider() {
    auto p = required_string(doc_, "provider");
    if (!p) return;
    provider_ = provider_kind_from_string(*p);
    if (!provider_) {
      problem("provider", "unknown provider kind '" + *p +
                              "' (use openai-chat, openai-responses, anthropic, gemini or openai-compatible)");
    }
  }

  void check_base_url() {
    auto url = required_string(doc_, "base_url");
    if (!url) return;
    auto expanded = expand_env_references(*url);
    if (!expanded) {
      problem("base_url", expanded.error().message);
      return;
    }
    if (expanded->rfind("http://", 0) != 0 && expanded->rfind("https://", 0) != 0) {
      problem("base_url", "must start with http:// or https:// (got '" + *expanded + "')");
    }
  }

  void check_api_key_env() {
    auto env = optional_string(doc_, "api_key_env");
    if (!env || env->empty()) return;
    bool valid = !std::isdigit(static_cast<unsigned char>((*env)[0]));
    for (char c : *env) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    // The value is deliberately not echoed: someone may have pasted the key itself here.
    if (!valid) {
      problem("api_key_env", "is not an environment variable name: give the NAME of the variable holding the key "
                             "(e.g. OPENAI_API_KEY), never the key itself");
    }
  }

  void check_server() {
    auto s = optional_string(doc_, "server");
    if (!s) return;
    if (!kServers.count(*s)) {
      problem("server", "unknown server '" + *s + "' (use vllm, sglang, ollama, llamacpp, deepseek or openrouter)");
    }
    if (provider_ && *provider_ != ProviderKind::openai_compatible) {
      problem("server", "applies only to provider openai-compatible");
    }
  }

  void check_generation() {
    const json* g = section("generation");
    if (!g) return;
    const std::string s = "generation";
    known(*g, s, {"max_output_tokens", "temperature", "top_p", "reasoning_effort", "thinking_budget_tokens", "stream"});
    auto max_out = number(*g, s, "max_output_tokens", true, 0, true);
    auto temperature = number(*g, s, "temperature", false, 0, false, 2);
    auto top_p = number(*g, s, "top_p", false, 0, true, 1);
    auto budget = number(*g, s, "thinking_budget_tokens", true, 0);
    auto effort = optional_string(*g, "reasoning_effort", s);
    boolean(*g, s, "stream");
    if (effort && !kEfforts.count(*effort)) {
      problem("generation.reasoning_effort", "must be minimal, low, medium or high (got '" + *effort + "')");
    }
    if (!provider_) return;
    const bool openai_style = *provider_ == ProviderKind::openai_chat || *provider_ == ProviderKind::openai_responses ||
                              *provider_ == ProviderKind::openai_compatible;
    if (effort && !openai_style) {
      problem("generation.reasoning_effort", "is not used by provider " + to_string(*provider_) +
                                                 ": set generation.thinking_budget_tokens instead");
    }
    if (budget && openai_style) {
      problem("generation.thinking_budget_tokens", "is not used by provider " + to_string(*provider_) +
                                                       ": set generation.reasoning_effort instead");
    }
    if (*provider_ == ProviderKind::anthropic && budget && *budget > 0) {
      if (*budget < 1024) problem("generation.thinking_budget_tokens", "Anthropic requires at least 1024 (or 0 to disable thinking)");
      if (max_out && *budget >= *max_out) {
        problem("generation.thinking_budget_tokens", "must be less than generation.max_output_tokens (thinking counts toward it)");
      }
      if (temperature && *temperature != 1.0) {
        warning("generation.temperature", "Anthropic accepts only temperature 1 with extended thinking; leave it unset");
      }
      if (top_p && *top_p < 0.95) warning("generation.top_p", "Anthropic accepts only top_p >= 0.95 with extended thinking");
    }
    const std::string model = doc_.contains("model") && doc_["model"].is_string() ? doc_["model"].get<std::string>() : "";
    const bool openai_reasoning_model =
        (*provider_ == ProviderKind::openai_chat || *provider_ == ProviderKind::openai_responses) &&
        (effort || model.rfind("o1", 0) == 0 || model.rfind("o3", 0) == 0 || model.rfind("o4", 0) == 0 ||
         model.rfind("gpt-5", 0) == 0);
    if (openai_reasoning_model && temperature) {
      warning("generation.temperature", "OpenAI reasoning models reject temperature (HTTP 400); leave it unset");
    }
    if (openai_reasoning_model && top_p) {
      warning("generation.top_p", "OpenAI reasoning models reject top_p (HTTP 400); leave it unset");
    }
  }

  void check_timeouts() {
    const json* t = section("timeouts");
    if (!t) return;
    known(*t, "timeouts", {"connect_s", "idle_s", "total_s"});
    auto connect = number(*t, "timeouts", "connect_s", false, 0, true);
    auto idle = number(*t, "timeouts", "idle_s", false, 0, true);
    auto total = number(*t, "timeouts", "total_s", false, 0, true);
    if (total && idle && *idle > *total) problem("timeouts.idle_s", "must not exceed timeouts.total_s");
    if (total && connect && *connect > *total) problem("timeouts.connect_s", "must not exceed timeouts.total_s");
  }

  void check_retry() {
    const json* r = section("retry");
    if (!r) return;
    known(*r, "retry", {"max_attempts", "initial_backoff_s", "max_backoff_s", "multiplier", "jitter", "max_server_wait_s"});
    number(*r, "retry", "max_attempts", true, 1);
    auto initial = number(*r, "retry", "initial_backoff_s", false, 0);
    auto max_backoff = number(*r, "retry", "max_backoff_s", false, 0);
    number(*r, "retry", "multiplier", false, 1);
    number(*r, "retry", "jitter", false, 0, false, 1);
    number(*r, "retry", "max_server_wait_s", false, 0);
    if (initial && max_backoff && *max_backoff < *initial) {
      problem("retry.max_backoff_s", "must be >= retry.initial_backoff_s");
    }
  }

  void check_rate_limits() {
    const json* r = section("rate_limits");
    if (!r) return;
    known(*r, "rate_limits", {"requests_per_minute", "tokens_per_minute", "max_concurrent"});
    number(*r, "rate_limits", "requests_per_minute", false, 0);
    number(*r, "rate_limits", "tokens_per_minute", false, 0);
    number(*r, "rate_limits", "max_concurrent", true, 1);
  }

  void check_prices() {
    const json* p = section("prices");
    if (!p) return;
    known(*p, "prices", {"input", "output", "reasoning", "cached_input"});
    for (const char* k : {"input", "output", "reasoning", "cached_input"}) number(*p, "prices", k, false, 0);
  }

  void check_loop() {
    const json* l = section("loop");
    if (!l) return;
    known(*l, "loop", {"turns", "samples", "stop_at_first_correct", "keep_last_attempts"});
    number(*l, "loop", "turns", true, 1);
    number(*l, "loop", "samples", true, 1);
    number(*l, "loop", "keep_last_attempts", true, 0);
    boolean(*l, "loop", "stop_at_first_correct");
  }

  void check_evaluation() {
    const json* e = section("evaluation");
    if (!e) return;
    known(*e, "evaluation", {"allow_reduced_precision"});
    boolean(*e, "evaluation", "allow_reduced_precision");
  }

  void check_prompt_overrides() {
    auto it = doc_.find("prompt_overrides");
    if (it == doc_.end()) return;
    if (!it->is_object()) {
      problem("prompt_overrides", "must be an object mapping template names to file paths");
      return;
    }
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) problem("prompt_overrides." + key, "must be a file path (string)");
    }
  }

  const json& doc_;
  std::string file_;
  std::optional<ProviderKind> provider_;
};

template <class T>
T get_or(const json& obj, const char* section, const char* key, T fallback) {
  auto s = obj.find(section);
  if (s == obj.end() || !s->is_object()) return fallback;
  auto it = s->find(key);
  if (it == s->end() || it->is_null()) return fallback;
  return it->get<T>();
}

template <class T>
std::optional<T> get_optional(const json& obj, const char* section, const char* key) {
  auto s = obj.find(section);
  if (s == obj.end() || !s->is_object()) return std::nullopt;
  auto it = s->find(key);
  if (it == s->end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

std::string format_problems(const std::vector<ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += "\n  " + p.file + ": " + (p.field.empty() ? "(file)" : p.field) + ": " + p.reason;
  return out;
}

Result<json> read_json(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    return make_error("config.json", std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace

std::vector<ConfigProblem> validate_model_config_json(const nlohmann::json& doc, const std::string& file) {
  Checker checker(doc, file);
  checker.run();
  return checker.problems;
}

std::vector<ConfigProblem> model_config_warnings(const nlohmann::json& doc, const std::string& file) {
  Checker checker(doc, file);
  checker.run();
  return checker.warnings;
}

std::vector<ConfigProblem> validate_model_config_file(const std::string& path) {
  auto doc = read_json(path);
  if (!doc) return {{path, "", doc.error().message}};
  return validate_model_config_json(*doc, path);
}

Result<ModelConfig> load_model_config(const std::string& path) {
  auto doc_result = read_json(path);
  if (!doc_result) return make_error("config.read", path + ": " + doc_result.error().message);
  const json& doc = *doc_result;
  auto problems = validate_model_config_json(doc, path);
  if (!problems.empty()) {
    return make_error("config.invalid", "invalid model configuration " + path + " (" + std::to_string(problems.size()) +
                                            " problem" + (problems.size() > 1 ? "s" : "") +
                                            "; see docs/configuration.md):" + format_problems(problems));
  }
  for (const auto& w : model_config_warnings(doc, path)) log::warn(w.file + ": " + w.field + ": " + w.reason);

  ModelConfig c;
  c.source_path = path;
  c.name = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>()
                                                           : std::filesystem::path(path).stem().string();
  c.provider = *provider_kind_from_string(doc["provider"].get<std::string>());
  c.base_url = std::move(expand_env_references(doc["base_url"].get<std::string>())).value();
  c.api_key_env = doc.value("api_key_env", std::string());
  c.model = doc["model"].get<std::string>();
  if (doc.contains("server") && doc["server"].is_string()) c.server = doc["server"].get<std::string>();

  GenerationSettings& g = c.generation;
  g.max_output_tokens = get_or<int64_t>(doc, "generation", "max_output_tokens", g.max_output_tokens);
  g.temperature = get_optional<double>(doc, "generation", "temperature");
  g.top_p = get_optional<double>(doc, "generation", "top_p");
  g.reasoning_effort = get_optional<std::string>(doc, "generation", "reasoning_effort");
  g.thinking_budget_tokens = get_optional<int64_t>(doc, "generation", "thinking_budget_tokens");
  g.stream = get_or<bool>(doc, "generation", "stream", g.stream);

  c.timeouts.connect_s = get_or<double>(doc, "timeouts", "connect_s", c.timeouts.connect_s);
  c.timeouts.idle_s = get_or<double>(doc, "timeouts", "idle_s", c.timeouts.idle_s);
  c.timeouts.total_s = get_or<double>(doc, "timeouts", "total_s", c.timeouts.total_s);

  c.retry.max_attempts = get_or<int>(doc, "retry", "max_attempts", c.retry.max_attempts);
  c.retry.initial_backoff_s = get_or<double>(doc, "retry", "initial_backoff_s", c.retry.initial_backoff_s);
  c.retry.max_backoff_s = get_or<double>(doc, "retry", "max_backoff_s", c.retry.max_backoff_s);
  c.retry.multiplier = get_or<double>(doc, "retry", "multiplier", c.retry.multiplier);
  c.retry.jitter = get_or<double>(doc, "retry", "jitter", c.retry.jitter);
  c.retry.max_server_wait_s = get_or<double>(doc, "retry", "max_server_wait_s", c.retry.max_server_wait_s);

  c.rate_limits.requests_per_minute = get_or<double>(doc, "rate_limits", "requests_per_minute", c.rate_limits.requests_per_minute);
  c.rate_limits.tokens_per_minute = get_or<double>(doc, "rate_limits", "tokens_per_minute", c.rate_limits.tokens_per_minute);
  c.rate_limits.max_concurrent = get_or<int>(doc, "rate_limits", "max_concurrent", c.rate_limits.max_concurrent);

  c.prices.input = get_or<double>(doc, "prices", "input", 0);
  c.prices.output = get_or<double>(doc, "prices", "output", 0);
  c.prices.reasoning = get_or<double>(doc, "prices", "reasoning", c.prices.output);
  c.prices.cached_input = get_or<double>(doc, "prices", "cached_input", c.prices.input);

  c.loop.turns = get_or<int>(doc, "loop", "turns", c.loop.turns);
  c.loop.samples = get_or<int>(doc, "loop", "samples", c.loop.samples);
  c.loop.stop_at_first_correct = get_or<bool>(doc, "loop", "stop_at_first_correct", c.loop.stop_at_first_correct);
  c.loop.keep_last_attempts = get_or<int>(doc, "loop", "keep_last_attempts", c.loop.keep_last_attempts);

  c.allow_reduced_precision = get_or<bool>(doc, "evaluation", "allow_reduced_precision", false);
  c.raw_log_dir = doc.value("raw_log_dir", std::string());
  if (doc.contains("prompt_overrides")) c.prompt_overrides = doc["prompt_overrides"];
  c.raw = doc;
  return c;
}

}  // namespace kf
