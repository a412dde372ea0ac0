#pragma once
// `kforge run`: problems x configurations x samples through the refinement loop, as a pipeline
// (model calls in parallel per configuration, compiles on a CPU pool, one evaluation at a time on the
// GPU), with budgets, Ctrl-C, progress and resume. docs/campaigns.md describes the behaviour.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kf::agent {

struct CampaignOptions {
  std::vector<std::string> config_paths;
  std::string problems;          // DIR | FILE | LIST
  std::optional<int> samples;    // overrides each configuration's loop.samples
  std::optional<int> turns;      // overrides each configuration's loop.turns
  std::optional<double> budget_usd;
  std::optional<int64_t> budget_tokens;
  std::string backend = "cuda";  // cuda | host
  std::string out;               // "" = runs/<derived name>
  bool allow_changed = false;
  std::string python;            // oracle interpreter ("" = evaluator default)
  bool allow_vendor_libs = false;
  bool allow_reduced_precision = false;  // also on when every configuration sets evaluation.allow_reduced_precision
  int compile_jobs = 0;          // 0 = hardware threads
  double timing_budget_ms = 0;   // 0 = the evaluator's default; small values make tests and demos quick
  bool progress_line = true;     // a \r progress line when stderr is a terminal
};

// Runs (or resumes) the campaign; returns the process exit code (cli/registry.h).
int run_campaign(const CampaignOptions& options);

// The folder a campaign writes to when --out is not given: runs/<configs>-<hash of the inputs>.
std::string default_out_dir(const CampaignOptions& options);

}  // namespace kf::agent
