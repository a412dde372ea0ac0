#pragma once
// The search of one (problem, configuration, sample): round after round, the configuration's strategy
// (agent/search/strategy.h) says what to ask; the asks of a round run in parallel, each extracted, judged, fed back
// and recorded in the corpus with its lineage, until a stop rule (agent/search/stop_rule.h) ends the unit.
// Resumes from the corpus's earlier records: the rounds are planned again from them, and what was recorded or
// saved is not asked for again.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/prompt/candidate_format.h"
#include "agent/prompt/conversation.h"
#include "agent/prompt/prompt_builder.h"
#include "agent/search/settings.h"
#include "corpus/record.h"
#include "corpus/writer.h"
#include "providers/provider.h"

namespace kf::agent {

using corpus::UnitKey;

struct ProblemInfo {
  std::string name;       // file stem, e.g. 19_ReLU
  std::string path;       // absolute
  std::string file_hash;  // sha256 of the file
  std::string category;
  std::string source;
  corpus::ProblemRef ref() const { return {name, file_hash, category, path}; }
};

// What a judge answers: the verdict and the evaluator (slot, GPU) that produced it.
struct Judgment {
  eval::Verdict verdict;
  std::optional<corpus::EvaluatorRef> evaluator;
};

// Compiles and judges a candidate source file against a problem. Implementations decide how
// compiles and evaluations share the machine (the campaign's: a CPU pool, one evaluator per GPU).
class KernelJudge {
 public:
  virtual ~KernelJudge() = default;
  virtual Judgment judge(const ProblemInfo& problem, const std::string& source_path) = 0;
};

// What every record of a campaign shares.
struct RunContext {
  std::string run_id;
  int session = 1;  // invocation of `kforge run` on this folder (1, 2, ... on resume)
  corpus::Environment environment;
  std::string shard;  // "I/N" under `kforge run --shard`, else empty
};

struct UnitSettings {
  search::SearchSettings search;   // strategy, rounds (refine: turns), stop rules and per-unit budgets
  std::string baseline = "eager";  // the primary baseline of this configuration's speedups (evaluation.baseline)
};

enum class UnitOutcome {
  done,             // finished: a stop rule ended it (unit_done names the rule)
  stopped,          // a stop was requested (budget, Ctrl-C) before the next model call
  provider_failed,  // the model call failed after retries; rerunning retries this turn
  harness_failed,   // kforge could not judge a kernel; rerunning retries this turn
};
std::string to_string(UnitOutcome outcome);

struct UnitJob {
  UnitKey key;
  const ProblemInfo* problem = nullptr;
  providers::Provider* provider = nullptr;
  KernelJudge* judge = nullptr;
  const PromptBuilder* prompt = nullptr;  // renders the feedback
  corpus::Writer* corpus = nullptr;
  const RunContext* run = nullptr;
  CandidateSpec candidate;  // the configuration's candidate format on the campaign's backend
  UnitSettings settings;
  std::string system_prompt;
  std::string first_turn;
  // Earlier records of this unit (any kind), in corpus order, for resuming.
  std::vector<corpus::Record> prior_records;
  // Asked before every model call and again when the call holds its concurrency slot, just before it is
  // sent (providers::CallGate); false stops the unit (budget exhausted, Ctrl-C, SIGTERM). Called from the
  // threads of a round's asks at once.
  std::function<bool()> may_call_model = [] { return true; };
  // Told what each call (a reply or a failure) cost the moment it ends, before its concurrency slot is
  // released and before it is judged: budget caps count it at once, not only once its record is written.
  std::function<void(double usd, int64_t tokens)> on_spent = [](double, int64_t) {};
  // Called with every record appended (for spend accounting and progress).
  std::function<void(const corpus::Record&)> on_record = [](const corpus::Record&) {};
};

// True when the prior records already hold a unit_done record.
bool unit_finished(const std::vector<corpus::Record>& prior_records);

// Runs (or resumes) the unit. A reply that arrived in an earlier session but was never recorded (kforge was
// stopped or killed while judging it) is judged again from its companion file rather than asked for again.
// Errors are corpus write failures, unreadable prior replies and an unknown strategy.
Result<UnitOutcome> run_unit(const UnitJob& job);

}  // namespace kf::agent
