#include "agent/campaign/campaign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>

#include "agent/campaign/budget.h"
#include "agent/campaign/evaluator_pool.h"
#include "agent/campaign/loop.h"
#include "agent/campaign/manifest.h"
#include "agent/campaign/problem_set.h"
#include "agent/campaign/progress.h"
#include "agent/campaign/scheduler.h"
#include "agent/campaign/stop_signals.h"
#include "agent/prompt/candidate_format.h"
#include "agent/prompt/prompt_builder.h"
#include "core/files.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/version.h"
#include "corpus/reader.h"
#include "corpus/shard.h"
#include "corpus/writer.h"
#include "evaluator/evaluator.h"
#include "evaluator/pool.h"
#include "providers/model_config.h"
#include "providers/provider.h"

namespace kf::agent {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct ConfigEntry {
  providers::ModelConfig config;
  std::string file_hash;
  std::shared_ptr<providers::Provider> provider;
  CandidateSpec candidate;
  PromptBuilder prompt;  // what the model sees (agent/prompt/prompt_builder.h)
  UnitSettings settings;
  int samples = 1;
  std::string system_prompt;
};

// Whether the loop section sets a stop rule or budget of the search (beyond refine's own keys).
bool search_limits_set(const providers::LoopSettings& loop) {
  return loop.plateau_evaluations || loop.budget.evaluations || loop.budget.tokens || loop.budget.usd ||
         loop.budget.gpu_seconds;
}

// What the manifest records of this invocation's inputs (manifest.h compares them on resume).
CampaignInputs campaign_inputs(const std::vector<ConfigEntry>& configs, const std::vector<ProblemInfo>& problems,
                               const CampaignOptions& o, const std::string& prompts_fingerprint) {
  CampaignInputs in;
  in.backend = o.backend;
  in.prompts_sha256 = prompts_fingerprint;
  for (const auto& c : configs)
    in.configs[c.config.name] = {
        .path = c.config.source_path,
        .sha256 = c.file_hash,
        .candidate_format = to_string(c.candidate.format),
        .samples = c.samples,
        .prompts_sha256 = c.prompt.templates().fingerprint(),
        .turns = c.settings.search.rounds,
        .stop_at_first_correct = c.settings.search.stop.first_correct,
        .keep_last_attempts = c.settings.search.keep_last_attempts,
        .stop_at_peak_fraction = c.settings.search.stop.peak_fraction,
        .baseline = c.settings.baseline,
        // A search replays its rounds from the corpus on resume: what plans them must not change.
        .search = c.settings.search.strategy != "refine" || search_limits_set(c.config.loop)
                      ? c.config.raw.value("loop", nlohmann::json::object())
                      : nlohmann::json()};
  for (const auto& p : problems) in.problems[p.name] = {.path = p.path, .sha256 = p.file_hash};
  return in;
}

// The configurations of --config, with --samples / --turns applied and their candidate format's templates
// for the backend; `fingerprint` receives the hash of their prompt templates (the manifest compares it on resume).
Result<std::vector<ConfigEntry>> load_configs(const CampaignOptions& o, bool cuda, std::string& fingerprint) {
  std::vector<ConfigEntry> configs;
  fingerprint.clear();
  for (const auto& path : o.config_paths) {
    auto cfg = providers::load_model_config(path);
    if (!cfg) return make_error("campaign.config", cfg.error().message);
    for (const auto& c : configs)
      if (c.config.name == cfg->name)
        return make_error("campaign.config", "two configurations share the name '" + cfg->name + "' (" +
                                                 c.config.source_path + ", " + path +
                                                 "); names identify configurations in the corpus, so make them unique");
    auto candidate = candidate_spec(cfg->candidate_format, cuda);
    if (!candidate) return make_error("campaign.config", path + ": " + candidate.error().message);
    auto templates = PromptTemplates::load(cfg->prompt_overrides, fs::path(path).parent_path().string(), "",
                                           candidate->template_layers);
    if (!templates) return make_error("campaign.config", path + ": " + templates.error().message);
    ConfigEntry e{*cfg, *sha256_file(path), nullptr, *candidate, PromptBuilder(*templates, *candidate), {}, 1, ""};
    e.settings.search = search::search_settings(cfg->loop, o.turns.value_or(cfg->loop.turns));
    e.settings.baseline = o.baseline.empty() ? cfg->baseline : o.baseline;
    e.samples = o.samples.value_or(cfg->loop.samples);
    if (e.settings.search.rounds < 1 || e.samples < 1)
      return make_error("campaign.config", "turns and samples must be at least 1 (configuration '" + cfg->name + "')");
    fingerprint += e.config.name + ":" + templates->fingerprint() + ";";
    configs.push_back(std::move(e));
  }
  fingerprint = sha256_hex(fingerprint);
  return configs;
}

}  // namespace

std::string default_out_dir(const CampaignOptions& o) {
  std::string key = o.problems + "\n" + o.backend;
  std::string names;
  std::vector<std::string> paths = o.config_paths;
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    key += "\n" + fs::absolute(p).lexically_normal().string();
    names += (names.empty() ? "" : "+") + fs::path(p).stem().string();
  }
  if (names.size() > 60) names = names.substr(0, 60);
  return "runs/" + names + "-" + sha256_hex(key).substr(0, 8);
}

CampaignSummary run_campaign(const CampaignOptions& o) {
  using Outcome = CampaignSummary::Outcome;
  CampaignSummary summary;
  auto fail = [&summary](Outcome outcome, const std::string& message) {
    log::error(message);
    summary.outcome = outcome;
    return summary;
  };
  // Ctrl-C and SIGTERM from here on stop new model calls (also while the evaluators start).
  StopSignals stop_signals(o.sigterm_deadline_s);
  // ---- Inputs ----
  auto backend = eval::parse_backend(o.backend);
  if (!backend) return fail(Outcome::bad_input, backend.error().message);
  if (o.config_paths.empty()) return fail(Outcome::bad_input, "kforge run needs at least one --config FILE");
  auto problems = load_problem_set(o.problems);
  if (!problems) return fail(Outcome::bad_input, problems.error().message);
  const bool cuda = *backend == eval::Backend::cuda;
  std::string prompts_fingerprint;
  auto loaded_configs = load_configs(o, cuda, prompts_fingerprint);
  if (!loaded_configs) return fail(Outcome::bad_input, loaded_configs.error().message);
  std::vector<ConfigEntry> configs = std::move(*loaded_configs);

  corpus::Shard shard;
  if (!o.shard.empty()) {
    auto parsed = corpus::Shard::parse(o.shard);
    if (!parsed) return fail(Outcome::bad_input, parsed.error().message);
    shard = *parsed;
  }
  // One evaluator per GPU (or --evaluators on host).
  auto slots = eval::plan_evaluators(*backend, o.gpus, o.evaluators);
  if (!slots)
    return fail(slots.error().code == "gpu.query" ? Outcome::harness_error : Outcome::bad_input, slots.error().message);
  const std::string out = o.out.empty() ? default_out_dir(o) : o.out;
  summary.out = out;
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return fail(Outcome::bad_input, "cannot create output folder '" + out + "': " + ec.message());

  // ---- The corpus file's lock first: a run refused here or by the manifest changes nothing on disk ----
  auto writer = corpus::Writer::open(out, shard.file_name(), o.lock_wait_s);
  if (!writer)
    return fail(writer.error().code == "corpus.busy" ? Outcome::bad_input : Outcome::harness_error,
                writer.error().message);

  // ---- Manifest: new run or resume (shards of one campaign share it) ----
  auto session = begin_session(out, campaign_inputs(configs, *problems, o, prompts_fingerprint), o.allow_changed,
                               shard.sharded() ? shard.text() : "");
  if (!session) return fail(Outcome::bad_input, session.error().message);
  if (!session->changes.empty()) {
    std::string msg = "the campaign in '" + out + "' was started with different inputs:";
    for (const auto& c : session->changes) msg += "\n  - " + c;
    log::warn(msg + "\ncontinuing because of --allow-changed");
  }

  // ---- Evaluators, environment, providers ----
  eval::EvaluatorOptions eo;
  eo.backend = *backend;
  eo.python = o.python;
  eo.allow_vendor_libs = o.allow_vendor_libs;
  eo.allow_reduced_precision = o.allow_reduced_precision;
  if (!configs.empty() && !o.allow_reduced_precision) {
    // One evaluator judges every configuration alike: the configurations' key must agree.
    const bool first = configs.front().config.allow_reduced_precision;
    for (const auto& c : configs)
      if (c.config.allow_reduced_precision != first)
        return fail(Outcome::bad_input,
                    "the configurations disagree on evaluation.allow_reduced_precision; a campaign judges all of "
                    "them alike (set it in every one, or pass --allow-reduced-precision)");
    eo.allow_reduced_precision = first;
  }
  for (const auto& c : configs)
    if (c.config.feedback_ncu != configs.front().config.feedback_ncu)
      return fail(Outcome::bad_input,
                  "the configurations disagree on feedback.ncu; a campaign profiles the correct kernels of all of "
                  "them alike (set it in every one, or in none)");
  if (o.timing_budget_ms > 0) eo.timing_budget_ms = o.timing_budget_ms;
  // One evaluator times every baseline a configuration names as its primary; each unit chooses its own.
  eo.compile_baseline = o.compile_baseline;
  eo.compile_mode = o.compile_mode;
  for (const auto& c : configs)
    if (c.settings.baseline == "compile") {
      if (o.compile_baseline == "off")
        return fail(Outcome::bad_input, "configuration '" + c.config.name +
                                            "' has the compile baseline as its primary, but --compile-baseline is off");
      eo.compile_baseline = "on";
    }
  auto pool = eval::EvaluatorPool::create(eo, *slots);
  if (!pool) return fail(Outcome::harness_error, pool.error().message);
  eval::Evaluator& first = (*pool)->evaluator(0);
  auto env = first.environment();
  if (!env) return fail(Outcome::harness_error, env.error().message);
  RunContext run;
  run.run_id = session->run_id;
  run.session = session->session;
  run.shard = shard.sharded() ? shard.text() : "";
  run.environment = {kVersion, o.backend, env->gpu_name, env->gpu_arch, env->torch_version, env->cuda_version};
  std::vector<corpus::EvaluatorRef> evaluators;
  for (size_t i = 0; i < (*pool)->size(); ++i) evaluators.push_back(evaluator_ref((*pool)->slot(i)));
  if (auto st = record_environment(out, run.environment, evaluators); !st)
    return fail(Outcome::harness_error, st.error().message);

  for (auto& c : configs) {
    auto p = providers::make_provider(c.config);
    if (!p) return fail(Outcome::bad_input, c.config.name + ": " + p.error().message);
    c.provider = *p;
  }

  auto kforge_h = read_file(eval::kforge_header_path());
  if (!kforge_h) return fail(Outcome::harness_error, "cannot read kforge.h: " + kforge_h.error().message);
  const PromptSetting setting{
      {env->gpu_name, env->gpu_arch, env->cuda_version}, {eo.allow_vendor_libs, eo.allow_reduced_precision}, *kforge_h};
  const bool any_kf_forward = std::any_of(configs.begin(), configs.end(), [](const ConfigEntry& c) {
    return c.candidate.format == CandidateFormat::kf_forward;
  });

  // First-turn text per (configuration, problem); kf_forward's shows the problem's exact signature.
  std::map<std::pair<size_t, size_t>, std::string> first_turns;
  for (size_t pi = 0; pi < problems->size(); ++pi) {
    const auto& p = (*problems)[pi];
    ProblemPrompt problem{p.name, p.source, ""};
    if (any_kf_forward) {
      auto sig = first.signature(p.path);
      if (!sig) return fail(Outcome::bad_input, "problem " + p.name + ": " + sig.error().message);
      problem.signature = sig->to_c_declaration();
    }
    for (size_t ci = 0; ci < configs.size(); ++ci) {
      auto first_turn = configs[ci].prompt.first_turn(problem, setting);
      if (!first_turn) return fail(Outcome::bad_input, configs[ci].config.name + ": " + first_turn.error().message);
      first_turns[{ci, pi}] = *first_turn;
    }
  }
  for (auto& c : configs) {
    auto sys = c.prompt.system_prompt();
    if (!sys) return fail(Outcome::bad_input, c.config.name + ": " + sys.error().message);
    c.system_prompt = *sys;
  }

  // ---- Corpus: this invocation appends to its shard's file; the folder's union is the prior state, read
  // once, streaming (finished units leave only a flag behind); the budget follows the folder from there ----
  PriorUnits prior;
  ProgressCounts counts;
  corpus::Follower follower(out);
  double folder_usd = 0;
  int64_t folder_tokens = 0;
  corpus::ReadDamage damage;
  if (auto st = follower.poll_summaries(
          [&](const corpus::RecordSummary& r, std::string_view line) {
            folder_usd += r.cost_usd;
            folder_tokens += r.tokens;
            if (!shard.owns(r.key)) return;
            counts.cost_usd += r.cost_usd;
            counts.tokens += r.tokens;
            prior.add(r, line);
          },
          &damage);
      !st)
    return fail(Outcome::harness_error, st.error().message);
  if (auto st = prior.finish(); !st) return fail(Outcome::harness_error, st.error().message);
  for (const auto& d : damage.first) log::warn(d.where() + ": unreadable record skipped: " + d.reason);
  if (damage.lines > static_cast<int64_t>(damage.first.size()))
    log::warn(std::to_string(damage.lines) + " unreadable records in all; `kforge status " + out + "` lists them");

  BudgetPolicy budget(std::move(follower), shard.file_name(), folder_usd, folder_tokens, o.budget_usd, o.budget_tokens);
  auto may_call = [&budget]() { return !StopSignals::requested() && budget.allows_model_call(); };
  auto on_spent = [&budget](double usd, int64_t tokens) { budget.charge(usd, tokens); };
  const int compile_jobs =
      o.compile_jobs > 0 ? o.compile_jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  PoolJudge judge(**pool, compile_jobs);
  if (!configs.empty() && configs.front().config.feedback_ncu) {
    // feedback.ncu: every configuration agrees (checked above); on the host backend or without ncu the
    // feedback goes without Nsight Compute's figures, said once here.
    const std::string ncu = *backend == eval::Backend::cuda ? eval::find_ncu(eo.cuda_home) : "";
    if (ncu.empty())
      log::warn(
          *backend == eval::Backend::cuda
              ? "feedback.ncu is on but Nsight Compute (ncu) was not found ($KFORGE_NCU, $CUDA_HOME/bin, PATH): "
                "correct kernels' feedback goes without its figures"
              : "feedback.ncu is on, but Nsight Compute profiles the cuda backend only: the feedback goes without "
                "its figures");
    else
      judge.profile_correct_kernels(ncu);
  }
  std::unique_ptr<ProgressPrinter> progress;

  std::vector<std::string> config_names, problem_names;
  std::vector<int> samples, workers;
  for (const auto& c : configs) {
    config_names.push_back(c.config.name);
    samples.push_back(c.samples);
    workers.push_back(std::max(1, c.config.rate_limits.max_concurrent) * 2);
  }
  for (const auto& p : *problems) problem_names.push_back(p.name);
  UnitPlan plan = plan_units(config_names, samples, problem_names, shard, prior, [&](size_t ci, size_t pi, int s) {
    auto& c = configs[ci];
    UnitJob job;
    job.key = {c.config.name, (*problems)[pi].name, s};
    job.problem = &(*problems)[pi];
    job.provider = c.provider.get();
    job.judge = &judge;
    job.prompt = &c.prompt;
    job.corpus = writer->get();
    job.run = &run;
    job.candidate = c.candidate;
    job.settings = c.settings;
    job.system_prompt = c.system_prompt;
    job.first_turn = first_turns[{ci, pi}];
    job.may_call_model = may_call;
    job.on_spent = on_spent;
    job.on_record = [&progress](const corpus::Record& r) { progress->on_record(r); };
    return job;
  });
  counts.total_units = plan.total_units;
  counts.units_done = plan.already_done;
  counts.units_correct = plan.already_correct;
  progress = std::make_unique<ProgressPrinter>(counts, o.progress_line);

  std::string evaluators_text;
  for (size_t i = 0; i < (*pool)->size(); ++i) evaluators_text += "\n  " + eval::describe((*pool)->slot(i));
  log::info("campaign " + run.run_id + " in " + out + (shard.sharded() ? " (shard " + shard.text() + ")" : "") + ": " +
            std::to_string(plan.total_units) + " units (" + std::to_string(problems->size()) + " problems x " +
            std::to_string(configs.size()) + " configurations x samples" +
            (shard.sharded() ? ", this shard's share" : "") + "), " + std::to_string(plan.already_done) +
            " already done, backend " + o.backend + (env->gpu_name.empty() ? "" : " on " + env->gpu_name) + ", " +
            std::to_string((*pool)->size()) + " evaluator(s):" + evaluators_text);

  const auto started = std::chrono::steady_clock::now();
  progress->start();
  SchedulerResult result = run_units(plan.queues, workers);
  progress->stop();

  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  summary.evaluator_busy_s = (*pool)->busy_seconds();
  const ProgressCounts final_counts = progress->counts();
  summary.total_units = final_counts.total_units;
  summary.units_done = final_counts.units_done;
  summary.units_correct = final_counts.units_correct;
  summary.evaluations = final_counts.evaluations;
  summary.provider_failed_units = result.provider_failed_units;
  summary.harness_failed_units = result.harness_failed_units;
  summary.budget_reached = budget.reached();
  log::info(progress->text());
  for (size_t i = 0; i < summary.evaluator_busy_s.size(); ++i) {
    const double busy = summary.evaluator_busy_s[i];
    log::info(eval::describe((*pool)->slot(i)) + " busy " + format_fixed(busy, 1) + " s of " +
              format_fixed(summary.wall_s, 1) + " s wall (" +
              format_fixed(summary.wall_s > 0 ? 100.0 * busy / summary.wall_s : 0.0, 0) + "%)");
  }
  log::info("corpus: " + (fs::path(out) / shard.file_name()).string() + "; report: kforge report " + out);

  const int left = summary.total_units - summary.units_done;
  if (result.fatal)
    summary.outcome = Outcome::harness_error;
  else if (StopSignals::requested()) {
    log::warn(std::string(StopSignals::terminated() ? "stopped by SIGTERM" : "interrupted") +
              ": every reply that arrived was recorded; " + std::to_string(left) +
              " units left; rerun the same command to resume");
    summary.outcome = StopSignals::terminated() ? Outcome::terminated : Outcome::interrupted;
  } else if (result.harness_failed_units > 0) {
    log::error(std::to_string(result.harness_failed_units) +
               " units stopped on harness failures (see the log above); rerun the same command to retry them");
    summary.outcome = Outcome::harness_error;
  } else if (result.provider_failed_units > 0) {
    log::error(std::to_string(result.provider_failed_units) +
               " units stopped on provider failures (recorded in the corpus); rerun the same command to retry them");
    summary.outcome = Outcome::provider_failures;
  } else if (summary.budget_reached) {
    log::warn(budget.reason() + "; " + std::to_string(left) + " units left; rerun with a larger budget to continue");
  }
  return summary;
}

}  // namespace kf::agent
