#pragma once
// One corpus record, typed: the only code that knows how a record looks on disk (to_json / from_json).
// Schema and meaning of every field: docs/corpus.md. Depends on core/ and the verdict (verdict/verdict.h).
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "corpus/lineage.h"
#include "corpus/token_usage.h"
#include "verdict/verdict.h"

namespace kf::corpus {

inline constexpr int kSchema = 1;

enum class Kind {
  evaluation,        // one evaluated (or unextractable) model reply
  provider_failure,  // the model call failed
  harness_failure,   // kforge could not judge the kernel
  unit_done,         // a (config, problem, sample) finished
  imported,          // a solution taken from a published run (`kforge import`), with that run's claim
};
std::string to_string(Kind kind);
std::optional<Kind> parse_kind(const std::string& text);

// Identifies one conversation: (configuration, problem, sample).
struct UnitKey {
  std::string config;
  std::string problem;
  int sample = 0;
  auto tie() const { return std::tie(config, problem, sample); }
  bool operator<(const UnitKey& o) const { return tie() < o.tie(); }
  bool operator==(const UnitKey& o) const { return tie() == o.tie(); }
  std::string file_stem() const;  // safe file name prefix: config__problem__s<sample>
};

struct ProblemRef {
  std::string name;       // file stem, e.g. 19_ReLU
  std::string file_hash;  // sha256 of the file
  std::string category;
  std::string path;  // absolute
  // A record's "problem" object, which reverify.json repeats (agent/claims/reverify_results.h).
  nlohmann::json to_json() const;
  // Read tolerantly (a field of another type reads as ""); nullopt when it has no name.
  static std::optional<ProblemRef> salvage(const nlohmann::json& j);
};

struct ReplyRef {
  std::string path;  // relative to the run folder
  std::string finish_reason;
  std::string model_reported;
  int attempts = 0;
  double latency_s = 0;
  int64_t answer_chars = 0;
  int64_t reasoning_chars = 0;
};

struct SourceRef {
  std::string path;  // relative to the run folder
  std::string sha256;
};

struct ProviderErrorInfo {
  std::string kind;   // auth, quota, rate_limit, server, network, ...
  std::string cause;  // the classified cause (docs/providers.md "Errors")
  std::string message;
  std::string advice;
  int http_status = 0;
  int attempts = 0;
};

// What a campaign ran on: each record's "environment" and run.json's "environment_last" (agent/campaign/manifest.h),
// both written by to_json.
struct Environment {
  std::string kforge_version, backend, gpu_name, gpu_arch, torch, cuda;
  nlohmann::json to_json() const;
};

// Where an imported solution came from: a KernelBench run folder (or a single file).
struct ImportOrigin {
  std::string run;         // the source run's name (its folder name, or --name)
  int level = 0;           // KernelBench level
  int problem_number = 0;  // the problem's number in that level (the prefix of its file name)
  std::string file;        // the solution's file name in the run, e.g. level_1_problem_19_sample_0_kernel.py
  std::string origin;      // absolute path of that file when it was imported
  // The release format it was read from: kernelbench-run (level_<L>_problem_<P>_sample_<S>_kernel.py),
  // kernelbench-run-v2 (problem_<P>_kernel.py + detailed_results.json), cuda-l1, kernelbench-leaderboard.
  std::string format;
  // What the solution is, read from its text at import (agent/claims/solution_kinds.h): cuda_kernel, triton_kernel,
  // cuda_graph, torch_compile, vendor_library, no_own_kernel.
  std::vector<std::string> kinds;
};

// One speedup a release claims, over the baseline it names (agent/claims/baseline_kind.h: eager, torch_compile,
// torch_compile_reduce_overhead, cuda_graph, cudnn).
struct ClaimedSpeedup {
  std::string baseline;
  double speedup = 0;
  std::optional<double> baseline_ms;  // the baseline's time, when the release gives it
};

// The reference problem a claim was made against, as the release shipped it, and how it compares with the
// dataset's problem of the same level and number (agent/claims/reference_drift.h).
struct ClaimReference {
  std::string path;  // companion copy, relative to the corpus folder
  std::string sha256;
  std::string origin;                // where the release keeps it
  std::optional<bool> differs;       // nullopt: not compared
  std::string summary;               // one line: what differs ("" when the same)
  std::vector<std::string> changes;  // computation, sizes, inputs, init (agent/claims/reference_drift.h)
};

// What the source run said about a solution (its eval_results.json entry and baseline timing). Absent
// values are unknown, never false or zero.
struct Claim {
  std::optional<bool> compiled;
  std::optional<bool> correct;
  std::optional<double> runtime_ms;         // the run's measured time of the solution
  std::optional<double> baseline_ms;        // the baseline file's mean for the problem
  std::optional<double> speedup;            // baseline_ms / runtime_ms
  std::string hardware;                     // as the run or baseline named it; "" when unknown
  std::string baseline_file;                // the baseline timing file used; "" without one
  nlohmann::json raw;                       // the run's entry as read (strings and arrays bounded); null without one
  std::string model;                        // the model the release names; "" when it names none
  std::string baseline_kind;                // what `speedup` is measured over; "" in records before it was kept (eager)
  std::vector<ClaimedSpeedup> speedups;     // every speedup claimed, over each baseline (`speedup` among them)
  std::optional<ClaimReference> reference;  // the release's own reference, when it ships one
  // kforge's audit of the problem (`kforge import --audit`): "degenerate" (a trivial output is itself
  // correct), "fooled" (KernelBench's check accepts a wrong trivial output), "" (not audited or clean).
  std::string task_quality;
  std::string task_quality_detail;
  // The claimed speedup over `baseline` (kind), if the release claims one.
  std::optional<double> speedup_over(const std::string& baseline) const;

  // The one writer of claims. to_json: the whole claim, as an imported record keeps it ("claim").
  // restated_json: what reports and reverify.json show of it ("claimed": compiled, correct, runtime_ms,
  // baseline_ms, speedup, hardware, model, baseline_kind ("eager" when unnamed), speedups by baseline).
  nlohmann::json to_json() const;
  nlohmann::json restated_json() const;
  // A restated claim read back (reverify.json); absent or mistyped fields read as unknown.
  static Claim from_restated_json(const nlohmann::json& j);
};

// Which evaluator judged the kernel: its slot in the pool and the GPU it is pinned to (none on host).
struct EvaluatorRef {
  int slot = 0;
  std::optional<int> gpu_index;
  std::string gpu_name;
  std::string gpu_uuid;
  nlohmann::json to_json() const;
  static EvaluatorRef from_json(const nlohmann::json& j);
};

struct Record {
  int schema = kSchema;
  Kind kind = Kind::evaluation;
  std::string run_id;
  int session = 1;
  std::string shard;  // "I/N" of the `kforge run --shard` that wrote it; empty when unsharded
  std::string config, provider, model;
  // The configuration's candidate_format (kf_forward, kernelbench-cuda, kernelbench-triton); empty in
  // records written before it was recorded, which are all kf_forward.
  std::string candidate_format;
  ProblemRef problem;
  int sample = 0;
  int turn = 0;
  std::optional<Lineage> lineage;  // searched candidates (corpus/lineage.h); absent for `refine` and old records

  // evaluation, provider_failure, harness_failure
  TokenUsage usage;
  double cost_usd = 0;
  std::optional<ReplyRef> reply;
  std::string extraction;  // ok | no_code_block | no_kf_forward
  std::optional<SourceRef> source;
  std::optional<eval::Verdict> verdict;  // `kforge eval --json` (docs/evaluator.md), or no_code; absent: null
  std::string feedback;
  std::optional<Environment> environment;
  std::optional<EvaluatorRef> evaluator;
  std::string started_at, recorded_at;     // the model call was sent; the record was written
  std::optional<double> queue_wait_s;      // the call's wait for a concurrency slot before started_at
  std::optional<ProviderErrorInfo> error;  // provider_failure

  // unit_done
  std::string reason;  // correct | peak_fraction_reached | turns_exhausted
  int turns_used = 0;
  std::optional<int> best_turn;

  // imported
  std::optional<ImportOrigin> imported;
  std::optional<Claim> claim;
  std::vector<std::string> warnings;  // what was odd about the source entry (each also logged at import)

  // Computed by the reader (never stored): the unit's best correct kernel (docs/corpus.md, "best").
  bool best = false;

  UnitKey key() const { return {config, problem.name, sample}; }
  std::string verdict_name() const;           // "correct", "incorrect", ..., "no_code"; "" without a verdict
  bool correct() const;                       // an evaluation whose verdict is correct
  std::optional<double> speedup() const;      // verdict.speedup
  std::optional<double> ref_time_ms() const;  // verdict.ref_time_ms
  bool claimed_correct() const;               // an imported record whose source run called it correct

  nlohmann::json to_json() const;
  // Errors name the field that is missing or has the wrong type.
  static Result<Record> from_json(const nlohmann::json& j);
};

// ISO-8601 UTC with milliseconds.
std::string utc_now_iso();

}  // namespace kf::corpus
