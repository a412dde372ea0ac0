#include <cstdio>
#include <filesystem>

#include "agent/campaign/campaign.h"
#include "agent/campaign/status.h"
#include "agent/claims/kernelbench_import.h"
#include "agent/claims/reverify.h"
#include "agent/claims/reverify_rule.h"
#include "agent/report/gnuplot.h"
#include "agent/report/import_report.h"
#include "agent/report/report.h"
#include "agent/report/report_html.h"
#include "agent/report/report_plots.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/log.h"

namespace kf::cli {
namespace {

struct ReportOptions {
  std::string format = "md";
  std::string gnuplot;      // --gnuplot: "" = gnuplot on PATH
  std::string figures_dir;  // --figures: also write every figure there as <id>.svg
};

// The figures of report_plots.h rendered by gnuplot; written to figures_dir too when one is given.
Result<std::vector<agent::RenderedPlot>> render_plots(const std::vector<agent::ConfigSummary>& summaries,
                                                      const ReportOptions& o) {
  auto gnuplot = agent::find_gnuplot(o.gnuplot);
  if (!gnuplot) return gnuplot.error();
  if (!o.figures_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.figures_dir, ec);
    if (ec) return make_error("report.figures", "cannot create '" + o.figures_dir + "': " + ec.message());
  }
  std::vector<agent::RenderedPlot> out;
  for (auto& plot : agent::report_plots(summaries)) {
    agent::RenderedPlot r{std::move(plot), ""};
    if (!r.plot.script.empty()) {
      auto svg = agent::render_svg(*gnuplot, r.plot);
      if (!svg) return svg.error();
      r.svg = std::move(*svg);
      if (!o.figures_dir.empty()) {
        const std::string file = (std::filesystem::path(o.figures_dir) / (r.plot.id + ".svg")).string();
        if (auto st = write_file_atomic(file, r.svg); !st) return st.error();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

int print_report(const std::vector<std::string>& dirs, const ReportOptions& o, bool compare) {
  const bool html = o.format == "html";
  auto format = agent::parse_report_format(o.format);
  if (!format && !html) {
    log::error("unknown --format '" + o.format + "': use md, json, csv or html");
    return kExitUsage;
  }
  std::vector<agent::ConfigSummary> all;
  agent::ImportReport imports;
  for (const auto& dir : dirs) {
    auto rule = agent::VerifiedSpeedupRule::for_folder(dir);
    if (!rule) {
      log::error(rule.error().message);
      return kExitUsage;
    }
    auto report = agent::summarize_folder(dir, *rule);  // streamed: memory grows with units, not records
    if (!report) {
      log::error(report.error().message);
      return kExitUsage;
    }
    std::string folder;
    if (compare)
      folder = std::filesystem::path(dir).filename().string().empty()
                   ? dir
                   : std::filesystem::path(dir).lexically_normal().filename().string();
    for (auto& s : report->summaries) {
      s.run = folder;
      all.push_back(std::move(s));
    }
    imports.append(agent::summarize_imports(report->imports, rule->reverify(), folder));
  }
  const std::string title = compare ? "kforge compare" : "kforge report: " + dirs.front();
  std::vector<agent::RenderedPlot> plots;
  // A folder of imports alone has no campaign figures to draw.
  if ((html || !o.figures_dir.empty()) && (!all.empty() || imports.empty())) {
    auto rendered = render_plots(all, o);
    if (!rendered) {
      log::error(rendered.error().message);
      return rendered.error().code == "report.gnuplot_missing" ? kExitUsage : kExitHarness;
    }
    plots = std::move(*rendered);
  }
  std::string text =
      html ? agent::format_html(all, plots, title, imports) : agent::format_with_imports(all, imports, *format, title);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

int exit_code(const agent::CampaignSummary& s) {
  using Outcome = agent::CampaignSummary::Outcome;
  switch (s.outcome) {
    case Outcome::complete: return kExitOk;
    case Outcome::bad_input: return kExitUsage;
    case Outcome::harness_error: return kExitHarness;
    case Outcome::provider_failures: return kExitFailure;
    case Outcome::interrupted: return 130;  // 128 + SIGINT, like a shell
    case Outcome::terminated: return 143;   // 128 + SIGTERM
  }
  return kExitHarness;
}

void add_report_options(CLI::App* cmd, const std::shared_ptr<ReportOptions>& o) {
  cmd->add_option("--format", o->format, "md (default), json, csv or html (one self-contained page with figures)");
  cmd->add_option("--gnuplot", o->gnuplot, "gnuplot to draw the figures with (default: gnuplot on PATH)");
  cmd->add_option("--figures", o->figures_dir, "Also write every figure as DIR/<figure>.svg (needs gnuplot)");
}

}  // namespace

void add_agent_commands(CLI::App& app, Registry& registry) {
  // run
  auto opts = std::make_shared<agent::CampaignOptions>();
  auto budget_usd = std::make_shared<double>(-1);
  auto budget_tokens = std::make_shared<int64_t>(-1);
  auto samples = std::make_shared<int>(0);
  auto turns = std::make_shared<int>(0);
  auto no_progress = std::make_shared<bool>(false);
  auto* run = app.add_subcommand("run", "Run (or resume) a generation campaign: problems x configurations x samples");
  run->add_option("--config", opts->config_paths, "Model configuration file (repeat for several)")->required();
  run->add_option("--problems", opts->problems, "Problem folder, .py file, list file, or comma-separated list")
      ->required();
  run->add_option("--samples", *samples,
                  "Samples per (problem, configuration); default: each configuration's loop.samples")
      ->check(CLI::PositiveNumber);
  run->add_option("--turns", *turns, "Turns per sample; default: each configuration's loop.turns")
      ->check(CLI::PositiveNumber);
  run->add_option("--budget-usd", *budget_usd, "Stop new model calls once the run has spent this many USD")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--budget-tokens", *budget_tokens, "Stop new model calls once the run has used this many tokens")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--backend", opts->backend, "cuda (default) or host")->check(CLI::IsMember({"cuda", "host"}));
  run->add_option("--out", opts->out, "Run folder (default: runs/<configurations>-<hash>); rerun to resume");
  run->add_flag("--allow-changed", opts->allow_changed, "Resume even if a configuration, problem or prompt changed");
  run->add_option("--python", opts->python, "Python interpreter with torch for the oracle");
  run->add_flag("--allow-vendor-libs", opts->allow_vendor_libs, "Allow cuBLAS, cuDNN and other vendor libraries");
  run->add_flag("--allow-reduced-precision", opts->allow_reduced_precision,
                "Accept TF32/fp16/bf16 arithmetic on fp32 problems (only flagged)");
  run->add_option("--baseline", opts->baseline,
                  "Primary baseline of every configuration's speedups, eager or compile (default: each "
                  "configuration's evaluation.baseline)")
      ->check(CLI::IsMember({"eager", "compile"}));
  run->add_option("--compile-baseline", opts->compile_baseline,
                  "Also time torch.compile of each reference: auto (on on cuda, off on host), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  run->add_option("--compile-mode", opts->compile_mode,
                  "torch.compile mode of the compile baseline: default or max-autotune")
      ->check(CLI::IsMember({"default", "max-autotune"}));
  run->add_option("--compile-jobs", opts->compile_jobs, "Parallel compiles (default: CPU threads)");
  run->add_option("--timing-budget-ms", opts->timing_budget_ms,
                  "Measured time per timing loop before stopping (default: the evaluator's)")
      ->check(CLI::PositiveNumber);
  run->add_flag("--no-progress", *no_progress, "Plain log lines even on a terminal");
  run->add_option("--gpus", opts->gpus,
                  "GPUs to evaluate on, one evaluator each: all (default on cuda) or a list of visible device "
                  "numbers, e.g. 0,1 (repeat one to share it: 0,0)");
  run->add_option("--evaluators", opts->evaluators, "Evaluators on the host backend (default 1)")
      ->check(CLI::PositiveNumber);
  run->add_option("--shard", opts->shard,
                  "Run only shard I of N (I/N, e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT): a share of the "
                  "units by a hash of (config, problem, sample), appended to its own corpus file in --out");
  run->add_option(
         "--wait-for-lock", opts->lock_wait_s,
         "Seconds to wait for a run still appending to this shard's corpus file before refusing (default 0; "
         "the Slurm script passes 60: a requeued task may start while the previous one records what was in flight)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--sigterm-deadline", opts->sigterm_deadline_s,
                  "Seconds after SIGTERM for recording what is in flight before aborting (default 25, inside "
                  "Slurm's 30 s grace)")
      ->check(CLI::NonNegativeNumber);
  registry.on_run(run, [=] {
    agent::CampaignOptions o = *opts;
    if (*samples > 0) o.samples = *samples;
    if (*turns > 0) o.turns = *turns;
    if (*budget_usd >= 0) o.budget_usd = *budget_usd;
    if (*budget_tokens >= 0) o.budget_tokens = *budget_tokens;
    o.progress_line = !*no_progress;
    return exit_code(agent::run_campaign(o));
  });

  // report
  auto report_dir = std::make_shared<std::string>();
  auto report_opts = std::make_shared<ReportOptions>();
  auto* report =
      app.add_subcommand("report", "Summarise a campaign's corpus per configuration (fast_p, speedups, cost)");
  report->add_option("dir", *report_dir, "Run folder (holds the corpus, evaluations*.jsonl)")->required();
  add_report_options(report, report_opts);
  registry.on_run(report, [=] { return print_report({*report_dir}, *report_opts, false); });

  // compare
  auto compare_dirs = std::make_shared<std::vector<std::string>>();
  auto compare_opts = std::make_shared<ReportOptions>();
  auto* compare = app.add_subcommand("compare", "Put the configurations of one or more runs side by side");
  compare->add_option("dirs", *compare_dirs, "Run folders")->required();
  add_report_options(compare, compare_opts);
  registry.on_run(compare, [=] { return print_report(*compare_dirs, *compare_opts, true); });

  // reverify
  auto ro = std::make_shared<agent::ReverifyOptions>();
  auto seed = std::make_shared<int64_t>(-1);
  auto* reverify = app.add_subcommand(
      "reverify", "Re-judge every correct kernel of a run with new seeds and a freshly timed baseline");
  reverify->add_option("dir", ro->dir, "Run folder")->required();
  reverify->add_option("--out", ro->out, "Also write the results as JSON to this file (always: DIR/reverify.json)");
  reverify->add_option("--backend", ro->backend, "cuda or host (default: the run's)")
      ->check(CLI::IsMember({"cuda", "host"}));
  reverify->add_option("--python", ro->python, "Python interpreter with torch for the oracle");
  reverify->add_option("--seed", *seed, "Seed of the first trial (default: random, printed)")
      ->check(CLI::NonNegativeNumber);
  reverify->add_flag("--best-only", ro->best_only, "Only each (problem, configuration, sample)'s best kernel");
  reverify->add_flag("--all", ro->all, "Imported solutions: every one, not only those their run claimed correct");
  reverify->add_flag("--allow-vendor-libs", ro->allow_vendor_libs, "Allow cuBLAS, cuDNN and other vendor libraries");
  reverify->add_flag("--allow-reduced-precision", ro->allow_reduced_precision,
                     "Accept TF32/fp16/bf16 arithmetic on fp32 problems (only flagged)");
  reverify->add_option("--gpus", ro->gpus,
                       "GPUs to re-verify on, one evaluator each: all (default on cuda) or a list, e.g. 0,1 or 0,0");
  reverify->add_option("--evaluators", ro->evaluators, "Evaluators on the host backend (default 1)")
      ->check(CLI::PositiveNumber);
  reverify
      ->add_option("--compile-jobs", ro->compile_jobs,
                   "Threads that compile sources ahead of the evaluators (default: a quarter of the cores)")
      ->check(CLI::PositiveNumber);
  reverify->add_option("--levels", ro->levels, "Imported solutions of these KernelBench levels only, e.g. 1,2")
      ->delimiter(',')
      ->check(CLI::Range(1, 9));
  reverify->add_flag("--resume", ro->resume,
                     "Continue a stopped re-verification: keep the kernels DIR/reverify.journal holds, judge the rest "
                     "with its seed");
  reverify->add_flag("--restart", ro->restart, "Discard an unfinished re-verification and start over")
      ->excludes("--resume");
  reverify
      ->add_option("--time-limit", ro->time_limit_s,
                   "Start no kernel after this many seconds; the rest waits for --resume")
      ->check(CLI::PositiveNumber);
  registry.on_run(reverify, [=] {
    agent::ReverifyOptions o = *ro;
    if (*seed >= 0) o.seed = static_cast<uint64_t>(*seed);
    return agent::run_reverify(o);
  });

  // import
  auto io = std::make_shared<agent::ImportOptions>();
  auto level = std::make_shared<int>(0);
  auto* import = app.add_subcommand(
      "import",
      "Import published KernelBench solutions (runs, CUDA-L1, the leaderboard) and their claims into a corpus "
      "to re-verify");
  import
      ->add_option("sources", io->sources,
                   "Run folders (level_<L>_problem_<P>_sample_<S>_kernel.py files and eval_results.json, or "
                   "problem_<P>_kernel.py files and detailed_results.json), folders of run folders, .py solution "
                   "files, CUDA-L1's <gpu>.json files or their folder, the leaderboard's raw_data.json or its folder")
      ->required();
  import->add_option("--out", io->out, "Corpus folder to import into (importing again adds only what is new)")
      ->required();
  import->add_option("--kernelbench", io->kernelbench,
                     "KernelBench's dataset folder (level1/, level2/, level3/): the problem of each number");
  import->add_option("--level", *level, "Only solutions of this level (needed for a run folder of several)")
      ->check(CLI::PositiveNumber);
  import->add_option("--baseline", io->baseline,
                     "KernelBench baseline timing file (baseline_time_torch*.json): claimed speedup = its mean / "
                     "the solution's runtime (without it: runtimes only)");
  import->add_option("--name", io->name,
                     "Run name of the one run folder, or of the solution files (default: the "
                     "folder's name; \"files\")");
  import->add_option("--problem", io->problem, "Problem file the single solution files solve");
  import->add_option("--audit", io->audit,
                     "JSON of `kforge audit --json-file` over the dataset's problems: claims on degenerate or fooled "
                     "problems are marked");
  registry.on_run(import, [=] {
    agent::ImportOptions o = *io;
    if (*level > 0) o.level = *level;
    auto result = agent::import_kernelbench(o);
    if (!result) {
      log::error(result.error().message);
      const std::string& code = result.error().code;
      return code.rfind("import.", 0) == 0 || code.rfind("problems.", 0) == 0 ? kExitUsage : kExitHarness;
    }
    std::string text = agent::format_import_result(*result);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  });

  // status
  auto status_dir = std::make_shared<std::string>();
  auto status_json = std::make_shared<bool>(false);
  auto* status = app.add_subcommand(
      "status", "Per-shard and total progress of a run folder; anything recorded twice or unreadable (exit 1)");
  status->add_option("dir", *status_dir, "Run folder")->required();
  status->add_flag("--json", *status_json, "Print JSON instead of the table");
  registry.on_run(status, [=] {
    auto st = agent::run_status(*status_dir);
    if (!st) {
      log::error(st.error().message);
      return kExitUsage;
    }
    std::string text = *status_json ? st->dump(2) + "\n" : agent::format_status(*st);
    std::fwrite(text.data(), 1, text.size(), stdout);
    // Exit 1 when the corpus holds anything recorded twice or lines no reader can use.
    return st->at("duplicates").empty() && st->value("unreadable_lines", int64_t{0}) == 0 ? kExitOk : kExitFailure;
  });
}

}  // namespace kf::cli
