#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "core/files.h"
#include "core/secrets.h"
#include "corpus/token_usage.h"
#include "providers/model_config.h"
#include "providers/provider.h"

namespace kf::cli {
namespace {

struct AskArgs {
  std::string config_path;
  std::string base_url;
  std::string system_prompt;
  bool no_stream = false;
  bool json = false;
  std::string prompt;
};

// Every string is redacted on its way in, and the dump once more: a key can never reach stdout.
std::string redacted_dump(const nlohmann::json& j) { return secrets::redact(j.dump(2)) + "\n"; }

// The "usage" object as the corpus writes it (corpus/token_usage.h).
nlohmann::json usage_json(const providers::Usage& u) {
  return corpus::TokenUsage{u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens,
                            to_string(u.reasoning_source)}
      .to_json();
}

// `kforge ask --json` for a failure before any request (bad configuration, missing key).
int json_setup_failure(const std::string& message) {
  std::cout << redacted_dump({{"ok", false}, {"error", {{"class", "config"}, {"message", secrets::redact(message)}}}});
  return kExitUsage;
}

nlohmann::json ask_json(const providers::ModelConfig& config,
                        const providers::ProviderResult<providers::Reply>& result) {
  nlohmann::json out = {
      {"config", config.name}, {"provider", to_string(config.provider)}, {"base_url", config.base_url}};
  if (const auto* error = std::get_if<providers::ProviderError>(&result)) {
    out["ok"] = false;
    out["model"] = config.model;
    out["attempts"] = error->attempts;
    out["usage"] = usage_json(error->usage);
    out["cost_usd"] = providers::cost_usd(error->usage, config.prices);
    out["error"] = {{"class", to_string(error->kind)},
                    {"cause", to_string(error->cause)},
                    {"http_status", error->http_status},
                    {"message", secrets::redact(error->message)},
                    {"advice", secrets::redact(error->advice)}};
    return out;
  }
  const providers::Reply& reply = std::get<providers::Reply>(result);
  out["ok"] = true;
  out["model"] = reply.model;
  out["answer"] = secrets::redact(reply.answer);
  out["reasoning"] = secrets::redact(reply.reasoning);
  out["finish_reason"] = reply.finish_reason;
  out["attempts"] = reply.attempts;
  out["latency_s"] = reply.latency_s;
  out["usage"] = usage_json(reply.usage);
  out["cost_usd"] = reply.cost_usd;
  return out;
}

std::string money(double usd) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "$%.6f", usd);
  return buf;
}

int run_ask(const AskArgs& args) {
  auto config = providers::load_model_config(args.config_path);
  if (!config) {
    if (args.json) return json_setup_failure(config.error().message);
    std::cerr << "kforge ask: " << config.error().message << "\n";
    return kExitUsage;
  }
  if (!args.base_url.empty()) config->base_url = args.base_url;
  if (args.no_stream) config->generation.stream = false;
  auto provider = providers::make_provider(*config);
  if (!provider) {
    if (args.json) return json_setup_failure(provider.error().message);
    std::cerr << "kforge ask: " << secrets::redact(provider.error().message) << "\n";
    return kExitUsage;
  }
  std::vector<providers::ChatMessage> messages;
  if (!args.system_prompt.empty()) messages.push_back({"system", args.system_prompt});
  messages.push_back({"user", args.prompt});
  auto result = (*provider)->complete(messages);
  if (args.json) {
    std::cout << redacted_dump(ask_json(*config, result)) << std::flush;
    return std::holds_alternative<providers::Reply>(result) ? kExitOk : kExitFailure;
  }
  if (const auto* error = std::get_if<providers::ProviderError>(&result)) {
    std::cerr << "kforge ask: provider error (" << to_string(error->kind);
    if (error->http_status) std::cerr << ", HTTP " << error->http_status;
    std::cerr << ", " << error->attempts << " attempt" << (error->attempts == 1 ? "" : "s")
              << "): " << secrets::redact(error->message) << "\n";
    return kExitFailure;
  }
  const providers::Reply& reply = std::get<providers::Reply>(result);
  std::cout << secrets::redact(reply.answer);
  if (reply.answer.empty() || reply.answer.back() != '\n') std::cout << "\n";
  const providers::Usage& u = reply.usage;
  std::ostringstream summary;
  summary << "---\n"
          << "model: " << reply.model << " (" << to_string(config->provider) << ", " << config->base_url << ")"
          << ", finish: " << reply.finish_reason << ", attempts: " << reply.attempts << ", latency: " << reply.latency_s
          << " s\n"
          << "reasoning: " << reply.reasoning.size() << " characters\n"
          << "usage: input " << u.input_tokens << " (cached " << u.cached_input_tokens << "), output "
          << u.output_tokens << ", reasoning " << u.reasoning_tokens << " tokens (split "
          << to_string(u.reasoning_source) << ")\n"
          << "cost: " << money(reply.cost_usd) << " (prices per million tokens from " << args.config_path << ")\n";
  std::cout << secrets::redact(summary.str()) << std::flush;
  return kExitOk;
}

int run_configs_validate(const std::vector<std::string>& files) {
  bool all_valid = true;
  for (const auto& file : files) {
    auto problems = providers::validate_model_config_file(file);
    for (const auto& p : problems) {
      std::cout << p.file << ": " << (p.field.empty() ? "(file)" : p.field) << ": " << p.reason << "\n";
    }
    if (auto text = read_file(file)) {
      try {
        for (const auto& w : providers::model_config_warnings(nlohmann::json::parse(*text), file)) {
          std::cout << w.file << ": " << w.field << ": warning: " << w.reason << "\n";
        }
      } catch (const nlohmann::json::parse_error&) {
        // already reported as a problem above
      }
    }
    if (problems.empty()) {
      std::cout << file << ": valid\n";
    } else {
      all_valid = false;
    }
  }
  return all_valid ? kExitOk : kExitUsage;
}

}  // namespace

void add_provider_commands(CLI::App& app, Registry& registry) {
  auto ask = std::make_shared<AskArgs>();
  auto* ask_cmd = app.add_subcommand("ask", "Send one prompt to a model configuration; print answer, usage and cost");
  ask_cmd->add_option("--config", ask->config_path, "Model configuration file (configs/*.json)")->required();
  ask_cmd->add_option("--base-url", ask->base_url,
                      "Override the configuration's base_url (e.g. http://127.0.0.1:PORT/v1)");
  ask_cmd->add_option("--system", ask->system_prompt, "System prompt to send before the prompt");
  ask_cmd->add_flag("--no-stream", ask->no_stream, "Ask for a whole response instead of a stream");
  ask_cmd->add_flag("--json", ask->json,
                    "Print one JSON object (answer, reasoning, usage, cost, finish reason, attempts, latency; on "
                    "failure the error class, HTTP status and advice) instead of text");
  ask_cmd->add_option("prompt", ask->prompt, "The prompt text")->required();
  registry.on_run(ask_cmd, [ask] { return run_ask(*ask); });

  auto* configs = app.add_subcommand("configs", "Work with model configuration files");
  configs->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate =
      configs->add_subcommand("validate", "Check configuration files; print every problem as file: field: reason");
  validate->add_option("files", *files, "Configuration files")->required();
  registry.on_run(validate, [files] { return run_configs_validate(*files); });
}

}  // namespace kf::cli
