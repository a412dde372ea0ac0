// Loading a model configuration file: one table of fields drives both validation and loading (the names
// of its enums are in model_config_names.cpp, ${NAME} expansion in env_references.cpp).
#include "providers/model_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "core/files.h"
#include "core/log.h"

namespace kf::providers {

namespace {

using nlohmann::json;

const std::set<std::string> kServers = {"vllm", "sglang", "ollama", "llamacpp", "deepseek", "openrouter"};
const std::set<std::string> kEfforts = {"minimal", "low", "medium", "high"};
const std::vector<std::string> kBaselines = {"eager", "compile"};

// What a field must hold. `path_map` is an object whose values are file paths (prompt_overrides).
enum class Type { string, integer, number, boolean, path_map };

struct Range {
  std::optional<double> min;
  bool min_exclusive = false;
  std::optional<double> max;
};

using Store = std::function<void(ModelConfig&, const json&)>;

// One field of a configuration file: where it sits, what it must hold, and where a valid value goes.
// Validation (unknown fields, types, ranges, required fields) and loading both walk this table, so a
// field is named once. Rules that relate several fields are in Checker::cross_checks.
struct Field {
  const char* section;  // "" = top level; "loop.beam" = the object beam inside loop
  const char* key;
  Type type;
  Range range;
  bool required;
  Store store;                                        // empty: validated, not loaded (description)
  const std::vector<std::string>* choices = nullptr;  // a string field's allowed values (nullptr: any)
};

template <class T>
struct Stored {
  using type = T;
};
template <class T>
struct Stored<std::optional<T>> {
  using type = T;
};

template <class T>
Store into(T ModelConfig::*member) {
  return [member](ModelConfig& c, const json& v) { c.*member = v.get<typename Stored<T>::type>(); };
}
template <class S, class T>
Store into(S ModelConfig::*section, T S::*member) {
  return [section, member](ModelConfig& c, const json& v) { (c.*section).*member = v.get<typename Stored<T>::type>(); };
}

// A field of a part of the loop section (loop.beam.width).
template <class S, class T>
Store loop_into(S LoopSettings::*part, T S::*member) {
  return [part, member](ModelConfig& c, const json& v) { (c.loop.*part).*member = v.get<typename Stored<T>::type>(); };
}

const Range kPositive{0, true, std::nullopt};
const Range kNonNegative{0, false, std::nullopt};
const Range kAtLeastOne{1, false, std::nullopt};

// clang-format off
const std::vector<Field>& fields() {
  using C = ModelConfig;
  using G = GenerationSettings;
  using T = Timeouts;
  using R = RetryPolicy;
  using L = RateLimits;
  using P = Prices;
  using Lp = LoopSettings;
  static const std::vector<Field> table = {
      {"", "name", Type::string, {}, false, into(&C::name)},
      {"", "description", Type::string, {}, false, {}},
      {"", "provider", Type::string, {}, true,
       [](C& c, const json& v) { c.provider = *provider_kind_from_string(v.get<std::string>()); }},
      {"", "base_url", Type::string, {}, true,
       [](C& c, const json& v) { c.base_url = expand_env_references(v.get<std::string>()).value(); }},
      {"", "api_key_env", Type::string, {}, false, into(&C::api_key_env)},
      {"", "model", Type::string, {}, true, into(&C::model)},
      {"", "server", Type::string, {}, false, into(&C::server)},
      {"generation", "max_output_tokens", Type::integer, kPositive, false, into(&C::generation, &G::max_output_tokens)},
      {"generation", "temperature", Type::number, {0, false, 2}, false, into(&C::generation, &G::temperature)},
      {"generation", "top_p", Type::number, {0, true, 1}, false, into(&C::generation, &G::top_p)},
      {"generation", "reasoning_effort", Type::string, {}, false, into(&C::generation, &G::reasoning_effort)},
      {"generation", "thinking_budget_tokens", Type::integer, kNonNegative, false,
       into(&C::generation, &G::thinking_budget_tokens)},
      {"generation", "stream", Type::boolean, {}, false, into(&C::generation, &G::stream)},
      {"timeouts", "connect_s", Type::number, kPositive, false, into(&C::timeouts, &T::connect_s)},
      {"timeouts", "idle_s", Type::number, kPositive, false, into(&C::timeouts, &T::idle_s)},
      {"timeouts", "total_s", Type::number, kPositive, false, into(&C::timeouts, &T::total_s)},
      {"retry", "max_attempts", Type::integer, kAtLeastOne, false, into(&C::retry, &R::max_attempts)},
      {"retry", "initial_backoff_s", Type::number, kNonNegative, false, into(&C::retry, &R::initial_backoff_s)},
      {"retry", "max_backoff_s", Type::number, kNonNegative, false, into(&C::retry, &R::max_backoff_s)},
      {"retry", "multiplier", Type::number, kAtLeastOne, false, into(&C::retry, &R::multiplier)},
      {"retry", "jitter", Type::number, {0, false, 1}, false, into(&C::retry, &R::jitter)},
      {"retry", "max_server_wait_s", Type::number, kNonNegative, false, into(&C::retry, &R::max_server_wait_s)},
      {"rate_limits", "requests_per_minute", Type::number, kNonNegative, false,
       into(&C::rate_limits, &L::requests_per_minute)},
      {"rate_limits", "tokens_per_minute", Type::number, kNonNegative, false,
       into(&C::rate_limits, &L::tokens_per_minute)},
      {"rate_limits", "max_concurrent", Type::integer, kAtLeastOne, false, into(&C::rate_limits, &L::max_concurrent)},
      // prices.reasoning defaults to prices.output and prices.cached_input to prices.input (see load_model_config).
      {"prices", "input", Type::number, kNonNegative, false, into(&C::prices, &P::input)},
      {"prices", "output", Type::number, kNonNegative, false, into(&C::prices, &P::output)},
      {"prices", "reasoning", Type::number, kNonNegative, false, into(&C::prices, &P::reasoning)},
      {"prices", "cached_input", Type::number, kNonNegative, false, into(&C::prices, &P::cached_input)},
      {"loop", "turns", Type::integer, kAtLeastOne, false, into(&C::loop, &Lp::turns)},
      {"loop", "samples", Type::integer, kAtLeastOne, false, into(&C::loop, &Lp::samples)},
      {"loop", "stop_at_first_correct", Type::boolean, {}, false, into(&C::loop, &Lp::stop_at_first_correct)},
      {"loop", "keep_last_attempts", Type::integer, kNonNegative, false, into(&C::loop, &Lp::keep_last_attempts)},
      {"loop", "stop_at_peak_fraction", Type::number, {0, true, 1}, false,
       into(&C::loop, &Lp::stop_at_peak_fraction)},
      {"loop", "strategy", Type::string, {}, false, into(&C::loop, &Lp::strategy), &loop_strategy_names()},
      {"loop", "rounds", Type::integer, kAtLeastOne, false, into(&C::loop, &Lp::rounds)},
      {"loop", "seed", Type::integer, kNonNegative, false, into(&C::loop, &Lp::seed)},
      {"loop.best_of_n", "n", Type::integer, kAtLeastOne, false, loop_into(&Lp::best_of_n, &Lp::BestOfN::n)},
      {"loop.beam", "width", Type::integer, kAtLeastOne, false, loop_into(&Lp::beam, &Lp::Beam::width)},
      {"loop.beam", "children", Type::integer, kAtLeastOne, false, loop_into(&Lp::beam, &Lp::Beam::children)},
      {"loop.beam", "diverse", Type::boolean, {}, false, loop_into(&Lp::beam, &Lp::Beam::diverse)},
      {"loop.evolve", "islands", Type::integer, kAtLeastOne, false, loop_into(&Lp::evolve, &Lp::Evolve::islands)},
      {"loop.evolve", "population", Type::integer, kAtLeastOne, false,
       loop_into(&Lp::evolve, &Lp::Evolve::population)},
      {"loop.evolve", "children", Type::integer, kAtLeastOne, false, loop_into(&Lp::evolve, &Lp::Evolve::children)},
      {"loop.evolve", "tournament", Type::integer, kAtLeastOne, false,
       loop_into(&Lp::evolve, &Lp::Evolve::tournament)},
      {"loop.evolve", "diversity", Type::number, kNonNegative, false, loop_into(&Lp::evolve, &Lp::Evolve::diversity)},
      {"loop.evolve", "inspirations", Type::integer, {0, false, 2}, false,
       loop_into(&Lp::evolve, &Lp::Evolve::inspirations)},
      {"loop.evolve", "migrate_every", Type::integer, kNonNegative, false,
       loop_into(&Lp::evolve, &Lp::Evolve::migrate_every)},
      {"loop.stop", "plateau_evaluations", Type::integer, kAtLeastOne, false,
       into(&C::loop, &Lp::plateau_evaluations)},
      {"loop.budget", "evaluations", Type::integer, kAtLeastOne, false,
       loop_into(&Lp::budget, &Lp::Budget::evaluations)},
      {"loop.budget", "tokens", Type::integer, kAtLeastOne, false, loop_into(&Lp::budget, &Lp::Budget::tokens)},
      {"loop.budget", "usd", Type::number, kPositive, false, loop_into(&Lp::budget, &Lp::Budget::usd)},
      {"loop.budget", "gpu_seconds", Type::number, kPositive, false,
       loop_into(&Lp::budget, &Lp::Budget::gpu_seconds)},
      {"evaluation", "allow_reduced_precision", Type::boolean, {}, false, into(&C::allow_reduced_precision)},
      {"evaluation", "baseline", Type::string, {}, false, into(&C::baseline), &kBaselines},
      {"feedback", "ncu", Type::boolean, {}, false, into(&C::feedback_ncu)},
      {"", "candidate_format", Type::string, {}, false,
       [](C& c, const json& v) { c.candidate_format = *candidate_format_from_string(v.get<std::string>()); },
       &candidate_format_names()},
      {"", "raw_log_dir", Type::string, {}, false, into(&C::raw_log_dir)},
      {"", "prompt_overrides", Type::path_map, {}, false, [](C& c, const json& v) { c.prompt_overrides = v; }},
  };
  // clang-format on
  return table;
}

std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

// The object at a dotted section path ("" = doc itself); nullptr when absent or not an object on the way.
const json* find_section(const json& doc, const std::string& section) {
  const json* obj = &doc;
  size_t from = 0;
  while (!section.empty() && from <= section.size()) {
    const size_t dot = std::min(section.find('.', from), section.size());
    auto s = obj->find(section.substr(from, dot - from));
    if (s == obj->end() || !s->is_object()) return nullptr;
    obj = &*s;
    from = dot + 1;
  }
  return obj;
}

// The value of `section.key` in `doc`; nullptr when absent, null, or its section is not an object.
const json* find_value(const json& doc, const std::string& section, const std::string& key) {
  const json* obj = find_section(doc, section);
  if (!obj) return nullptr;
  auto it = obj->find(key);
  if (it == obj->end() || it->is_null()) return nullptr;
  return &*it;
}

// Walks a configuration document once, collecting every problem and warning.
class Checker {
 public:
  Checker(const json& doc, std::string file) : doc_(doc), file_(std::move(file)) {}

  void run() {
    if (!doc_.is_object()) {
      problem("", "the file must hold a JSON object (see docs/configuration.md)");
      return;
    }
    check_layout();
    for (const Field& f : fields()) check_field(f);
    cross_checks();
  }

  std::vector<ConfigProblem> problems;
  std::vector<ConfigProblem> warnings;

 private:
  void problem(const std::string& field, const std::string& reason) { problems.push_back({file_, field, reason}); }
  void warning(const std::string& field, const std::string& reason) { warnings.push_back({file_, field, reason}); }

  // Unknown fields at the top level and in each section; sections that are not objects.
  void check_layout() {
    std::map<std::string, std::set<std::string>> known;  // section ("" = top level) -> keys
    for (const Field& f : fields()) {
      known[f.section].insert(f.key);
      // Each part of a dotted section is a key of the one above it (loop.beam: beam in loop, loop at the top).
      for (std::string s = f.section; !s.empty();) {
        const auto dot = s.rfind('.');
        known[dot == std::string::npos ? "" : s.substr(0, dot)].insert(dot == std::string::npos ? s
                                                                                                : s.substr(dot + 1));
        s = dot == std::string::npos ? "" : s.substr(0, dot);
      }
    }
    for (const auto& [section, keys] : known) {
      const json* obj = &doc_;
      if (!section.empty()) {
        const auto dot = section.rfind('.');
        const json* parent = find_section(doc_, dot == std::string::npos ? "" : section.substr(0, dot));
        if (!parent) continue;
        auto it = parent->find(dot == std::string::npos ? section : section.substr(dot + 1));
        if (it == parent->end()) continue;
        if (!it->is_object()) {
          problem(section, "must be an object");
          continue;
        }
        obj = &*it;
      }
      for (const auto& [key, value] : obj->items()) {
        (void)value;
        if (keys.count(key)) continue;
        std::string list;
        for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
        problem(join(section, key), "unknown field (known here: " + list + ")");
      }
    }
  }

  void check_field(const Field& f) {
    const std::string path = join(f.section, f.key);
    const json* v = find_value(doc_, f.section, f.key);
    if (!v) {
      if (f.required) problem(path, "missing: this field is required");
      return;
    }
    switch (f.type) {
      case Type::string:
        if (!v->is_string()) return problem(path, "must be a string");
        if (f.choices && std::find(f.choices->begin(), f.choices->end(), v->get<std::string>()) == f.choices->end()) {
          std::string list;
          for (const auto& c : *f.choices) list += (list.empty() ? "" : ", ") + c;
          return problem(path, "must be one of " + list + " (got '" + v->get<std::string>() + "')");
        }
        break;
      case Type::boolean:
        if (!v->is_boolean()) return problem(path, "must be true or false");
        break;
      case Type::integer:
      case Type::number: {
        const bool integer = f.type == Type::integer;
        if (integer ? !v->is_number_integer() : !v->is_number()) {
          return problem(path, integer ? "must be an integer" : "must be a number");
        }
        const double x = v->get<double>();
        const Range& r = f.range;
        if (r.min && (r.min_exclusive ? x <= *r.min : x < *r.min)) {
          std::ostringstream m;
          m << "must be " << (r.min_exclusive ? "> " : ">= ") << *r.min << " (got " << v->dump() << ")";
          return problem(path, m.str());
        }
        if (r.max && x > *r.max) {
          std::ostringstream m;
          m << "must be <= " << *r.max << " (got " << v->dump() << ")";
          return problem(path, m.str());
        }
        break;
      }
      case Type::path_map: {
        if (!v->is_object()) return problem(path, "must be an object mapping template names to file paths");
        bool ok = true;
        for (const auto& [key, value] : v->items()) {
          if (!value.is_string()) {
            problem(path + "." + key, "must be a file path (string)");
            ok = false;
          }
        }
        if (!ok) return;
        break;
      }
    }
    valid_[path] = v;
  }

  // Valid values by dotted path (absent when missing or reported).
  std::optional<double> number(const std::string& path) const {
    auto it = valid_.find(path);
    return it == valid_.end() ? std::nullopt : std::optional<double>(it->second->get<double>());
  }
  std::optional<std::string> text(const std::string& path) const {
    auto it = valid_.find(path);
    return it == valid_.end() ? std::nullopt : std::optional<std::string>(it->second->get<std::string>());
  }

  void cross_checks() {
    check_provider();
    check_base_url();
    check_api_key_env();
    if (auto m = text("model"); m && m->empty()) problem("model", "must not be empty");
    check_server();
    check_generation();
    if (auto total = number("timeouts.total_s")) {
      if (auto idle = number("timeouts.idle_s"); idle && *idle > *total) {
        problem("timeouts.idle_s", "must not exceed timeouts.total_s");
      }
      if (auto connect = number("timeouts.connect_s"); connect && *connect > *total) {
        problem("timeouts.connect_s", "must not exceed timeouts.total_s");
      }
    }
    auto initial = number("retry.initial_backoff_s");
    auto max_backoff = number("retry.max_backoff_s");
    if (initial && max_backoff && *max_backoff < *initial) {
      problem("retry.max_backoff_s", "must be >= retry.initial_backoff_s");
    }
  }

  void check_provider() {
    auto p = text("provider");
    if (!p) return;
    provider_ = provider_kind_from_string(*p);
    if (!provider_) {
      problem("provider", "unknown provider kind '" + *p +
                              "' (use openai-chat, openai-responses, anthropic, gemini or openai-compatible)");
    }
  }

  void check_base_url() {
    auto url = text("base_url");
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
    auto env = text("api_key_env");
    if (!env || env->empty()) return;
    bool valid = !std::isdigit(static_cast<unsigned char>((*env)[0]));
    for (char c : *env) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    // The value is deliberately not echoed: someone may have pasted the key itself here.
    if (!valid) {
      problem("api_key_env",
              "is not an environment variable name: give the NAME of the variable holding the key "
              "(e.g. OPENAI_API_KEY), never the key itself");
    }
  }

  void check_server() {
    auto s = text("server");
    if (!s) return;
    if (!kServers.count(*s)) {
      problem("server", "unknown server '" + *s + "' (use vllm, sglang, ollama, llamacpp, deepseek or openrouter)");
    }
    if (provider_ && *provider_ != ProviderKind::openai_compatible) {
      problem("server", "applies only to provider openai-compatible");
    }
  }

  void check_generation() {
    auto max_out = number("generation.max_output_tokens");
    auto temperature = number("generation.temperature");
    auto top_p = number("generation.top_p");
    auto budget = number("generation.thinking_budget_tokens");
    auto effort = text("generation.reasoning_effort");
    if (effort && !kEfforts.count(*effort)) {
      problem("generation.reasoning_effort", "must be minimal, low, medium or high (got '" + *effort + "')");
    }
    if (!provider_) return;
    const bool openai_style = *provider_ == ProviderKind::openai_chat || *provider_ == ProviderKind::openai_responses ||
                              *provider_ == ProviderKind::openai_compatible;
    if (effort && !openai_style) {
      problem("generation.reasoning_effort",
              "is not used by provider " + to_string(*provider_) + ": set generation.thinking_budget_tokens instead");
    }
    if (budget && openai_style) {
      problem("generation.thinking_budget_tokens",
              "is not used by provider " + to_string(*provider_) + ": set generation.reasoning_effort instead");
    }
    if (*provider_ == ProviderKind::anthropic && budget && *budget > 0) {
      if (*budget < 1024)
        problem("generation.thinking_budget_tokens", "Anthropic requires at least 1024 (or 0 to disable thinking)");
      if (max_out && *budget >= *max_out) {
        problem("generation.thinking_budget_tokens",
                "must be less than generation.max_output_tokens (thinking counts toward it)");
      }
      if (temperature && *temperature != 1.0) {
        warning("generation.temperature",
                "Anthropic accepts only temperature 1 with extended thinking; leave it unset");
      }
      if (top_p && *top_p < 0.95)
        warning("generation.top_p", "Anthropic accepts only top_p >= 0.95 with extended thinking");
    }
    const std::string model = text("model").value_or("");
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

  const json& doc_;
  std::string file_;
  std::optional<ProviderKind> provider_;
  std::map<std::string, const json*> valid_;
};

std::string format_problems(const std::vector<ConfigProblem>& problems) {
  std::string out;
  for (const auto& p : problems)
    out += "\n  " + p.file + ": " + (p.field.empty() ? "(file)" : p.field) + ": " + p.reason;
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
  c.name = std::filesystem::path(path).stem().string();
  for (const Field& f : fields()) {
    if (!f.store) continue;
    if (const json* v = find_value(doc, f.section, f.key)) f.store(c, *v);
  }
  if (!find_value(doc, "prices", "reasoning")) c.prices.reasoning = c.prices.output;
  if (!find_value(doc, "prices", "cached_input")) c.prices.cached_input = c.prices.input;
  c.raw = doc;
  return c;
}

}  // namespace kf::providers
