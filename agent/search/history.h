#pragma once
// What a search has judged so far in one unit (configuration, problem, sample): every evaluated candidate with
// the figures a strategy or a stop rule reads, and what the unit spent. Rebuilt from the corpus on resume, so a
// strategy that plans from it plans the same rounds again.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "corpus/record.h"

namespace kf::agent::search {

struct Judged {
  corpus::RecordId id;
  int round = 0;              // lineage round; a refine record's turn
  std::optional<int> island;  // evolve
  std::vector<corpus::RecordId> parents;
  std::optional<corpus::Lineage> lineage;  // as recorded; none for refine
  std::string answer;                      // the model's answer (what a conversation sends back)
  std::string source_sha256;               // the kernel extracted from it, as recorded; "" when none
  std::string structure;                   // kernel_structure() of the answer (agent/search/structure.h)
  std::string feedback;                    // the message that answered it
  bool correct = false;
  std::optional<double> speedup;
  std::optional<double> peak_fraction;
  std::string bound_by;     // memory | compute | "" (no roofline)
  double timing_noise = 0;  // the candidate's relative timing spread, (p90 - p10) / time; 0 when unknown
  double eval_s = 0;        // evaluator time (the GPU-seconds budget)
  int64_t tokens = 0;       // what its model call cost
  double usd = 0;

  static Judged from(const corpus::Record& record, std::string answer);
};

struct Spend {
  int evaluations = 0;
  int64_t tokens = 0;
  double usd = 0;
  double gpu_seconds = 0;
};

class History {
 public:
  // An evaluation (its cost is charged too) and a failed call or judging (only its cost).
  void add(Judged judged);
  void add_failure(int round, int64_t tokens, double usd);
  void set_rounds_done(int rounds) { rounds_done_ = rounds; }

  const std::vector<Judged>& judged() const { return judged_; }  // in turn order
  const Spend& spend() const { return spend_; }
  int rounds_done() const { return rounds_done_; }
  const Judged* find(const corpus::RecordId& id) const;
  bool has_turn(int turn) const;
  // What had been judged and spent before round `round` (the state the round was planned from).
  History before(int round) const;

  // Correct kernels, best first: by speedup, then fraction of peak, then the earlier turn.
  std::vector<const Judged*> ranked_correct() const;
  // The fastest correct kernel of each structure, best first (ranked as ranked_correct).
  std::vector<const Judged*> best_per_structure() const;
  // Whether `j` is correct and the unit's first correct kernel of its structure (none from an earlier turn).
  bool first_of_structure(const Judged& j) const;
  // The unit's best kernel as unit_done names it: the highest speedup, the earliest turn among equals.
  std::optional<int> best_turn() const;

 private:
  struct Failure {
    int round;
    int64_t tokens;
    double usd;
  };
  std::vector<Judged> judged_;
  std::vector<Failure> failures_;
  Spend spend_;
  int rounds_done_ = 0;
};

}  // namespace kf::agent::search
