#pragma once
// `kforge run`: problems x configurations x samples through the refinement loop, as a pipeline
// (model calls in parallel per configuration, compiles on a CPU pool, one evaluation at a time per
// evaluator, one evaluator per GPU), with budgets, Ctrl-C and SIGTERM, progress, resume and shards.
// docs/campaigns.md and docs/cluster.md describe the behaviour. The parts: scheduler.h (units, workers),
// budget.h, progress.h, manifest.h, evaluator_pool.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kf::agent {

struct CampaignOptions {
  std::vector<std::string> config_paths;
  std::string problems;        // DIR | FILE | LIST
  std::optional<int> samples;  // overrides each configuration's loop.samples
  std::optional<int> turns;    // overrides each configuration's loop.turns
  std::optional<double> budget_usd;
  std::optional<int64_t> budget_tokens;
  std::string backend = "cuda";  // cuda | host
  std::string out;               // "" = runs/<derived name>
  bool allow_changed = false;
  std::string python;  // oracle interpreter ("" = evaluator default)
  bool allow_vendor_libs = false;
  bool allow_reduced_precision = false;   // also on when every configuration sets evaluation.allow_reduced_precision
  std::string baseline;                   // --baseline: every configuration's primary baseline ("": each one's own)
  std::string compile_baseline = "auto";  // auto | on | off (on when a configuration's primary is compile)
  std::string compile_mode = "default";   // default | max-autotune
  int compile_jobs = 0;                   // 0 = hardware threads
  double timing_budget_ms = 0;            // 0 = the evaluator's default; small values make tests and demos quick
  bool progress_line = true;              // a \r progress line when stderr is a terminal
  std::string gpus;                       // --gpus: "" (all visible on cuda, 1 on host), "all", or "0,1,..."
  int evaluators = 0;                     // --evaluators N on the host backend (0 = 1)
  std::string shard;                      // --shard I/N; "" = the whole campaign
  double lock_wait_s = 0;                 // how long a shard's corpus file held by another run is waited for
  double sigterm_deadline_s = 25;         // after SIGTERM, what is in flight may take this long (stop_signals.h)
};

// How a campaign invocation ended; cli/ maps it to an exit code.
struct CampaignSummary {
  enum class Outcome {
    complete,           // every unit of this shard done, or the budget stopped new calls
    bad_input,          // options, configurations, problems or the folder's manifest are wrong (logged)
    harness_error,      // kforge could not run (evaluator start, corpus writes) or units hit harness failures
    provider_failures,  // some units stopped on provider failures (recorded; rerun retries them)
    interrupted,        // Ctrl-C
    terminated,         // SIGTERM
  };
  Outcome outcome = Outcome::complete;
  std::string out;  // the run folder
  int total_units = 0;
  int units_done = 0;
  int units_correct = 0;
  int evaluations = 0;
  int provider_failed_units = 0;
  int harness_failed_units = 0;
  bool budget_reached = false;
  double wall_s = 0;
  std::vector<double> evaluator_busy_s;  // per evaluator slot
};

// Runs (or resumes) the campaign.
CampaignSummary run_campaign(const CampaignOptions& options);

// The folder a campaign writes to when --out is not given: runs/<configs>-<hash of the inputs>.
std::string default_out_dir(const CampaignOptions& options);

}  // namespace kf::agent
