#include "agent/campaign.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <semaphore>
#include <thread>

#include "agent/corpus.h"
#include "agent/loop.h"
#include "agent/problem_set.h"
#include "agent/prompt_templates.h"
#include "cli/registry.h"
#include "core/data_dir.h"
#include "core/files.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/version.h"
#include "evaluator/evaluator.h"
#include "providers/model_config.h"
#include "providers/provider.h"

namespace kf::agent {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// ---- Ctrl-C: the first stops new work, the second aborts. ----
std::atomic<int> g_interrupts{0};
void on_sigint(int) {
  if (g_interrupts.fetch_add(1) >= 1) {
    const char msg[] = "\nkforge: second interrupt, aborting now (rerun the same command to resume)\n";
    ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(130);
  }
  const char msg[] = "\nkforge: interrupt: finishing what is in flight, no new model calls (Ctrl-C again aborts)\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

class SigintGuard {
 public:
  SigintGuard() {
    g_interrupts = 0;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_);
  }
  ~SigintGuard() { ::sigaction(SIGINT, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

// ---- The judge the campaign uses: compiles on a CPU pool, one evaluation at a time. ----
class EvaluatorJudge : public KernelJudge {
 public:
  EvaluatorJudge(eval::Evaluator& ev, int compile_jobs) : ev_(ev), compile_slots_(compile_jobs) {}
  nlohmann::json judge(const ProblemInfo& problem, const std::string& source_path) override {
    compile_slots_.acquire();
    eval::Compiled compiled = ev_.compile(source_path);
    compile_slots_.release();
    if (!compiled.ok()) return compiled.failure->to_json();
    std::lock_guard lock(eval_mu_);
    auto t0 = Clock::now();
    eval::Verdict v = ev_.evaluate(problem.path, compiled);
    busy_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
    return v.to_json();
  }
  double busy_seconds() {
    std::lock_guard lock(eval_mu_);
    return busy_s_;
  }

 private:
  eval::Evaluator& ev_;
  std::counting_semaphore<1024> compile_slots_;
  std::mutex eval_mu_;
  double busy_s_ = 0;
};

struct ConfigEntry {
  ModelConfig config;
  std::string file_hash;
  std::shared_ptr<Provider> provider;
  PromptTemplates templates;
  UnitSettings settings;
  int samples = 1;
  std::string system_prompt;
};

std::string random_hex(int n) {
  std::random_device rd;
  std::string s;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < n; ++i) s += hex[rd() % 16];
  return s;
}

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string duration_text(double s) {
  if (s < 0 || !std::isfinite(s)) return "?";
  int t = static_cast<int>(s + 0.5);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", t / 3600, (t % 3600) / 60);
  else std::snprintf(buf, sizeof buf, "%dm%02ds", t / 60, t % 60);
  return buf;
}

// ---- The manifest: what a folder's campaign was started with, to detect changes on resume. ----
nlohmann::json make_manifest_inputs(const std::vector<ConfigEntry>& configs, const std::vector<ProblemInfo>& problems,
                                    const CampaignOptions& o, const std::string& prompts_fingerprint) {
  nlohmann::json cj = nlohmann::json::object(), pj = nlohmann::json::object();
  for (const auto& c : configs)
    cj[c.config.name] = {{"path", c.config.source_path}, {"sha256", c.file_hash}, {"samples", c.samples},
                         {"turns", c.settings.turns}, {"stop_at_first_correct", c.settings.stop_at_first_correct},
                         {"keep_last_attempts", c.settings.keep_last_attempts}};
  for (const auto& p : problems) pj[p.name] = {{"path", p.path}, {"sha256", p.file_hash}};
  return {{"backend", o.backend}, {"configs", cj}, {"problems", pj}, {"prompts_sha256", prompts_fingerprint}};
}

// Differences that would make resumed records incomparable with earlier ones.
std::vector<std::string> manifest_changes(const nlohmann::json& old_in, const nlohmann::json& new_in) {
  std::vector<std::string> changes;
  if (old_in.value("backend", "") != new_in.value("backend", ""))
    changes.push_back("backend was " + old_in.value("backend", "") + ", now " + new_in.value("backend", ""));
  if (old_in.value("prompts_sha256", "") != new_in.value("prompts_sha256", ""))
    changes.push_back("the prompt templates changed");
  for (const char* group : {"configs", "problems"}) {
    if (!old_in.contains(group)) continue;
    for (const auto& [name, now] : new_in[group].items()) {
      if (!old_in[group].contains(name)) continue;
      const auto& was = old_in[group][name];
      if (was.value("sha256", "") != now.value("sha256", ""))
        changes.push_back(std::string(group == std::string("configs") ? "configuration" : "problem") + " '" + name +
                          "' changed (" + now.value("path", "") + ")");
      for (const char* key : {"samples", "turns", "stop_at_first_correct", "keep_last_attempts"})
        if (was.contains(key) && was[key] != now[key])
          changes.push_back("configuration '" + name + "': " + key + " was " + was[key].dump() + ", now " +
                            now[key].dump());
    }
  }
  return changes;
}

struct Totals {
  std::mutex mu;
  double cost = 0;
  int64_t tokens = 0;
  int units_done = 0;
  int units_correct = 0;
  int evaluations = 0;
  int provider_failures = 0;
  int harness_failures = 0;
};

int64_t tokens_of(const nlohmann::json& r) {
  if (!r.contains("usage")) return 0;
  const auto& u = r["usage"];
  return u.value("input_tokens", int64_t{0}) + u.value("output_tokens", int64_t{0}) +
         u.value("reasoning_tokens", int64_t{0});
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

int run_campaign(const CampaignOptions& o) {
  using namespace kf::cli;
  // ---- Inputs ----
  auto backend = eval::parse_backend(o.backend);
  if (!backend) {
    log::error(backend.error().message);
    return kExitUsage;
  }
  if (o.config_paths.empty()) {
    log::error("kforge run needs at least one --config FILE");
    return kExitUsage;
  }
  auto problems = load_problem_set(o.problems);
  if (!problems) {
    log::error(problems.error().message);
    return kExitUsage;
  }
  std::vector<ConfigEntry> configs;
  std::string prompts_fingerprint;
  for (const auto& path : o.config_paths) {
    auto cfg = load_model_config(path);
    if (!cfg) {
      log::error(cfg.error().message);
      return kExitUsage;
    }
    for (const auto& c : configs)
      if (c.config.name == cfg->name) {
        log::error("two configurations share the name '" + cfg->name + "' (" + c.config.source_path + ", " + path +
                   "); names identify configurations in the corpus, so make them unique");
        return kExitUsage;
      }
    auto templates = PromptTemplates::load(cfg->prompt_overrides, fs::path(path).parent_path().string());
    if (!templates) {
      log::error(path + ": " + templates.error().message);
      return kExitUsage;
    }
    ConfigEntry e{*cfg, *sha256_file(path), nullptr, *templates, {}, 1, ""};
    e.settings.turns = o.turns.value_or(cfg->loop.turns);
    e.settings.stop_at_first_correct = cfg->loop.stop_at_first_correct;
    e.settings.keep_last_attempts = cfg->loop.keep_last_attempts;
    e.samples = o.samples.value_or(cfg->loop.samples);
    if (e.settings.turns < 1 || e.samples < 1) {
      log::error("turns and samples must be at least 1 (configuration '" + cfg->name + "')");
      return kExitUsage;
    }
    prompts_fingerprint += e.config.name + ":" + templates->fingerprint() + ";";
    configs.push_back(std::move(e));
  }
  prompts_fingerprint = sha256_hex(prompts_fingerprint);

  const std::string out = o.out.empty() ? default_out_dir(o) : o.out;
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    log::error("cannot create output folder '" + out + "': " + ec.message());
    return kExitUsage;
  }

  // ---- Manifest: new run or resume ----
  const std::string manifest_path = (fs::path(out) / "run.json").string();
  nlohmann::json inputs = make_manifest_inputs(configs, *problems, o, prompts_fingerprint);
  nlohmann::json manifest;
  if (fs::exists(manifest_path)) {
    auto text = read_file(manifest_path);
    manifest = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!manifest.is_object()) {
      log::error("'" + manifest_path + "' is unreadable; it is not a kforge run folder, or it was damaged");
      return kExitUsage;
    }
    auto changes = manifest_changes(manifest.value("inputs", nlohmann::json::object()), inputs);
    if (!changes.empty()) {
      std::string msg = "the campaign in '" + out + "' was started with different inputs:";
      for (const auto& c : changes) msg += "\n  - " + c;
      if (!o.allow_changed) {
        log::error(msg + "\nRecords made before and after a change are not comparable. Use a new --out folder, "
                         "or pass --allow-changed to continue anyway (the change is logged in run.json).");
        return kExitUsage;
      }
      log::warn(msg + "\ncontinuing because of --allow-changed");
      manifest["changes"].push_back({{"at", utc_now_iso()}, {"changes", changes}});
    }
    // Keep names that earlier invocations added, add new ones.
    for (const char* group : {"configs", "problems"})
      for (const auto& [k, v] : inputs[group].items()) manifest["inputs"][group][k] = v;
    manifest["inputs"]["backend"] = inputs["backend"];
    manifest["inputs"]["prompts_sha256"] = inputs["prompts_sha256"];
    manifest["sessions"] = manifest.value("sessions", 0) + 1;
  } else {
    manifest = {{"schema", kCorpusSchema},
                {"run_id", "run-" + utc_now_iso().substr(0, 19) + "-" + random_hex(6)},
                {"created_at", utc_now_iso()},
                {"kforge_version", kVersion},
                {"inputs", inputs},
                {"sessions", 1}};
  }
  for (char& c : manifest["run_id"].get_ref<std::string&>())
    if (c == ':') c = '-';

  // ---- Evaluator, environment, providers ----
  eval::EvaluatorOptions eo;
  eo.backend = *backend;
  eo.python = o.python;
  eo.allow_vendor_libs = o.allow_vendor_libs;
  eo.allow_reduced_precision = o.allow_reduced_precision;
  if (!configs.empty() && !o.allow_reduced_precision) {
    // One evaluator judges every configuration alike: the configurations' key must agree.
    const bool first = configs.front().config.allow_reduced_precision;
    for (const auto& c : configs)
      if (c.config.allow_reduced_precision != first) {
        log::error("the configurations disagree on evaluation.allow_reduced_precision; a campaign judges all of "
                   "them alike (set it in every one, or pass --allow-reduced-precision)");
        return kExitUsage;
      }
    eo.allow_reduced_precision = first;
  }
  if (o.timing_budget_ms > 0) eo.timing_budget_ms = o.timing_budget_ms;
  auto evaluator = eval::Evaluator::create(eo);
  if (!evaluator) {
    log::error(evaluator.error().message);
    return kExitHarness;
  }
  auto env = (*evaluator)->environment();
  if (!env) {
    log::error(env.error().message);
    return kExitHarness;
  }
  RunContext run;
  run.run_id = manifest["run_id"];
  run.session = manifest["sessions"];
  run.environment = {{"kforge_version", kVersion}, {"backend", o.backend},          {"gpu_name", env->gpu_name},
                     {"gpu_arch", env->gpu_arch}, {"torch", env->torch_version}, {"cuda", env->cuda_version}};
  const bool cuda = *backend == eval::Backend::cuda;
  run.source_extension = cuda ? ".cu" : ".cpp";
  run.code_label = cuda ? "cuda" : "cpp";
  manifest["environment_last"] = run.environment;
  if (auto st = write_file_atomic(manifest_path, manifest.dump(2) + "\n"); !st) {
    log::error(st.error().message);
    return kExitHarness;
  }

  for (auto& c : configs) {
    auto p = make_provider(c.config);
    if (!p) {
      log::error(c.config.name + ": " + p.error().message);
      return kExitUsage;
    }
    c.provider = *p;
  }

  auto kforge_h = read_file(eval::kforge_header_path());
  if (!kforge_h) {
    log::error("cannot read kforge.h: " + kforge_h.error().message);
    return kExitHarness;
  }
  const std::string target =
      cuda ? env->gpu_name + " (" + env->gpu_arch + ")" + (env->cuda_version.empty() ? "" : ", CUDA " + env->cuda_version)
           : "the host CPU (host backend: tensor data pointers are host memory, stream is NULL; plain C++17)";
  const std::string allowed =
      cuda ? (o.allow_vendor_libs ? "the CUDA runtime and toolkit libraries (cuBLAS, cuDNN and others are allowed)"
                                  : "the CUDA runtime, device intrinsics and the C++ standard library only; no cuBLAS, "
                                    "cuDNN, CUTLASS or other vendor libraries")
           : "the C++17 standard library only";

  // First-turn text per (configuration, problem), from the problem's exact signature.
  std::map<std::string, std::string> signatures;
  for (const auto& p : *problems) {
    auto sig = (*evaluator)->signature(p.path);
    if (!sig) {
      log::error("problem " + p.name + ": " + sig.error().message);
      return kExitUsage;
    }
    signatures[p.name] = sig->to_c_declaration();
  }
  for (auto& c : configs) {
    auto sys = c.templates.render("system", {{"language", cuda ? "CUDA" : "C++"}});
    if (!sys) {
      log::error(c.config.name + ": " + sys.error().message);
      return kExitUsage;
    }
    c.system_prompt = *sys;
  }

  // ---- Corpus and prior state ----
  auto writer = CorpusWriter::open(out);
  if (!writer) {
    log::error(writer.error().message);
    return kExitHarness;
  }
  std::map<UnitKey, std::vector<nlohmann::json>> prior;
  Totals totals;
  if (fs::exists(fs::path(out) / kCorpusFile)) {
    auto corpus = load_corpus(out);
    if (!corpus) {
      log::error(corpus.error().message);
      return kExitHarness;
    }
    for (auto& r : corpus->records) {
      totals.cost += r.value("cost_usd", 0.0);
      totals.tokens += tokens_of(r);
      prior[unit_key_of(r)].push_back(std::move(r));
    }
  }

  struct Unit {
    UnitJob job;
    size_t config_index;
  };
  std::vector<std::deque<Unit>> queues(configs.size());
  int total_units = 0, already_done = 0;
  std::map<std::pair<size_t, std::string>, std::string> first_turns;
  for (const auto& p : *problems) {
    for (size_t ci = 0; ci < configs.size(); ++ci) {
      auto& c = configs[ci];
      auto first = c.templates.render(
          "first_turn", {{"language", cuda ? "CUDA" : "C++"},
                         {"problem_name", p.name},
                         {"problem_source", p.source},
                         {"signature", signatures[p.name]},
                         {"kforge_h", *kforge_h},
                         {"code_label", run.code_label},
                         {"file_kind", cuda ? "CUDA source (.cu)" : "C++ source (.cpp)"},
                         {"allowed_libraries", allowed},
                         {"target", target}});
      if (!first) {
        log::error(c.config.name + ": " + first.error().message);
        return kExitUsage;
      }
      first_turns[{ci, p.name}] = *first;
      for (int s = 0; s < c.samples; ++s) {
        ++total_units;
        UnitKey key{c.config.name, p.name, s};
        auto it = prior.find(key);
        if (it != prior.end() && unit_finished(it->second)) {
          ++already_done;
          for (const auto& r : it->second)
            if (record_correct(r)) {
              ++totals.units_correct;
              break;
            }
          continue;
        }
        Unit u;
        u.config_index = ci;
        u.job.key = key;
        u.job.problem = &p;
        u.job.provider = c.provider.get();
        u.job.templates = &c.templates;
        u.job.run = &run;
        u.job.settings = c.settings;
        u.job.system_prompt = c.system_prompt;
        if (it != prior.end()) u.job.prior_records = it->second;
        queues[ci].push_back(std::move(u));
      }
    }
  }
  totals.units_done = already_done;

  EvaluatorJudge judge(**evaluator, o.compile_jobs > 0 ? o.compile_jobs
                                                        : std::max(1u, std::thread::hardware_concurrency()));
  SigintGuard sigint_guard;
  std::atomic<bool> budget_hit{false};
  std::string budget_reason;
  std::mutex budget_mu;
  auto may_call = [&]() -> bool {
    if (g_interrupts.load() > 0) return false;
    std::lock_guard lock(totals.mu);
    std::string reason;
    if (o.budget_usd && totals.cost >= *o.budget_usd)
      reason = "USD budget reached ($" + fmt(totals.cost, 4) + " of $" + fmt(*o.budget_usd, 4) + ")";
    else if (o.budget_tokens && totals.tokens >= *o.budget_tokens)
      reason = "token budget reached (" + std::to_string(totals.tokens) + " of " + std::to_string(*o.budget_tokens) + ")";
    if (reason.empty()) return true;
    if (!budget_hit.exchange(true)) {
      std::lock_guard l2(budget_mu);
      budget_reason = reason;
      log::warn(reason + ": no new model calls; finishing what is in flight");
    }
    return false;
  };

  const bool tty = o.progress_line && ::isatty(STDERR_FILENO);
  std::mutex print_mu;
  const auto started = Clock::now();
  int done_this_session = 0;
  auto progress_text = [&]() {
    std::lock_guard lock(totals.mu);
    double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    int remaining = total_units - totals.units_done;
    double eta = done_this_session > 0 ? elapsed / done_this_session * remaining : -1;
    std::string s = "[" + std::to_string(totals.units_done) + "/" + std::to_string(total_units) + " units] " +
                    std::to_string(totals.units_correct) + " correct, " + std::to_string(totals.evaluations) +
                    " evaluations, $" + fmt(totals.cost, 4) + ", " + std::to_string(totals.tokens) +
                    " tokens, elapsed " + duration_text(elapsed) + ", ETA " + (remaining == 0 ? "0m00s" : duration_text(eta));
    return s;
  };
  auto on_record = [&](const nlohmann::json& r) {
    std::string line;
    {
      std::lock_guard lock(totals.mu);
      totals.cost += r.value("cost_usd", 0.0);
      totals.tokens += tokens_of(r);
      const std::string kind = r.value("kind", "");
      if (kind == kKindEvaluation) ++totals.evaluations;
      if (kind == kKindProviderFailure) ++totals.provider_failures;
      if (kind == kKindHarnessFailure) ++totals.harness_failures;
      if (kind == kKindUnitDone) {
        ++totals.units_done;
        ++done_this_session;
        if (r.value("best_turn", nlohmann::json()).is_number()) ++totals.units_correct;
      }
      if (kind == kKindUnitDone) return;
      line = r.value("config", "") + " " + r["problem"].value("name", "") + " s" + std::to_string(r.value("sample", 0)) +
             " t" + std::to_string(r.value("turn", 0)) + ": ";
      if (kind == kKindEvaluation) {
        line += record_verdict(r);
        if (auto sp = record_speedup(r); sp && record_correct(r)) line += " " + fmt(*sp, 3) + "x";
      } else if (kind == kKindProviderFailure) {
        line += "provider failure (" + r["error"].value("kind", "") + "): " + r["error"].value("message", "");
      } else {
        line += "harness failure";
      }
    }
    std::lock_guard lock(print_mu);
    if (tty) std::fprintf(stderr, "\r\033[K");
    log::info(line);
  };

  log::info("campaign " + run.run_id + " in " + out + ": " + std::to_string(total_units) + " units (" +
            std::to_string(problems->size()) + " problems x " + std::to_string(configs.size()) +
            " configurations x samples), " + std::to_string(already_done) + " already done, backend " + o.backend +
            (env->gpu_name.empty() ? "" : " on " + env->gpu_name));

  // ---- Workers: per configuration, enough threads that model calls up to max_concurrent overlap
  // with compiles and evaluations of that configuration's other units. ----
  std::mutex queue_mu;
  std::atomic<int> provider_failed_units{0}, harness_failed_units{0}, stopped_units{0};
  std::atomic<bool> fatal{false};
  std::vector<std::thread> workers;
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    int n = std::max(1, configs[ci].config.rate_limits.max_concurrent) * 2;
    n = std::min<int>(n, static_cast<int>(queues[ci].size()));
    for (int w = 0; w < n; ++w) {
      workers.emplace_back([&, ci] {
        while (!fatal) {
          Unit u;
          {
            std::lock_guard lock(queue_mu);
            if (queues[ci].empty()) return;
            u = std::move(queues[ci].front());
            queues[ci].pop_front();
          }
          u.job.judge = &judge;
          u.job.corpus = writer->get();
          u.job.first_turn = first_turns[{ci, u.job.problem->name}];
          u.job.may_call_model = may_call;
          u.job.on_record = on_record;
          auto outcome = run_unit(u.job);
          if (!outcome) {
            log::error(u.job.key.file_stem() + ": " + outcome.error().message);
            fatal = true;
            return;
          }
          if (*outcome == UnitOutcome::provider_failed) ++provider_failed_units;
          if (*outcome == UnitOutcome::harness_failed) ++harness_failed_units;
          if (*outcome == UnitOutcome::stopped) ++stopped_units;
        }
      });
    }
  }
  std::atomic<bool> finished{false};
  std::thread progress;
  if (tty) {
    progress = std::thread([&] {
      while (!finished) {
        {
          std::lock_guard lock(print_mu);
          std::fprintf(stderr, "\r\033[K%s", progress_text().c_str());
          std::fflush(stderr);
        }
        for (int i = 0; i < 10 && !finished; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  for (auto& t : workers) t.join();
  finished = true;
  if (progress.joinable()) progress.join();
  if (tty) std::fprintf(stderr, "\r\033[K");

  double wall = std::chrono::duration<double>(Clock::now() - started).count();
  double busy = judge.busy_seconds();
  log::info(progress_text());
  log::info("evaluator busy " + fmt(busy, 1) + " s of " + fmt(wall, 1) + " s wall (" +
            fmt(wall > 0 ? 100.0 * busy / wall : 0.0, 0) + "%)");
  log::info("corpus: " + (fs::path(out) / kCorpusFile).string() + "; report: kforge report " + out);

  if (fatal) return kExitHarness;
  if (g_interrupts.load() > 0) {
    log::warn("interrupted: " + std::to_string(total_units - totals.units_done) +
              " units left; rerun the same command to resume");
    return 130;
  }
  if (harness_failed_units > 0) {
    log::error(std::to_string(harness_failed_units.load()) +
               " units stopped on harness failures (see the log above); rerun the same command to retry them");
    return kExitHarness;
  }
  if (provider_failed_units > 0) {
    log::error(std::to_string(provider_failed_units.load()) +
               " units stopped on provider failures (recorded in the corpus); rerun the same command to retry them");
    return kExitFailure;
  }
  if (budget_hit) {
    log::warn(budget_reason + "; " + std::to_string(total_units - totals.units_done) +
              " units left; rerun with a larger budget to continue");
    return kExitOk;
  }
  return kExitOk;
}

}  // namespace kf::agent
