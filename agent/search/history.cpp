#include "agent/search/history.h"

#include <algorithm>
#include <set>

#include "agent/search/structure.h"

namespace kf::agent::search {

Judged Judged::from(const corpus::Record& r, std::string answer) {
  Judged j;
  j.id = {r.sample, r.turn};
  j.round = r.lineage ? r.lineage->round : r.turn;
  if (r.lineage) {
    j.island = r.lineage->island;
    j.parents = r.lineage->parents;
  }
  j.lineage = r.lineage;
  j.answer = std::move(answer);
  j.structure = kernel_structure(j.answer);
  if (r.source) j.source_sha256 = r.source->sha256;
  j.feedback = r.feedback;
  j.correct = r.correct();
  j.speedup = r.speedup();
  if (r.verdict) {
    if (r.verdict->peak) {
      j.peak_fraction = r.verdict->peak->fraction;
      j.bound_by = r.verdict->peak->bound_by;
    }
    const auto spread = r.verdict->timing_checks().candidate;
    if (spread && r.verdict->time_ms && *r.verdict->time_ms > 0)
      j.timing_noise = std::max(0.0, (spread->p90_ms - spread->p10_ms) / *r.verdict->time_ms);
    j.eval_s = r.verdict->eval_s;
  }
  j.tokens = r.usage.total();
  j.usd = r.cost_usd;
  return j;
}

void History::add(Judged judged) {
  spend_.evaluations += 1;
  spend_.tokens += judged.tokens;
  spend_.usd += judged.usd;
  spend_.gpu_seconds += judged.eval_s;
  const auto at = std::upper_bound(judged_.begin(), judged_.end(), judged.id.turn,
                                   [](int turn, const Judged& j) { return turn < j.id.turn; });
  judged_.insert(at, std::move(judged));
}

void History::add_failure(int round, int64_t tokens, double usd) {
  failures_.push_back({round, tokens, usd});
  spend_.tokens += tokens;
  spend_.usd += usd;
}

const Judged* History::find(const corpus::RecordId& id) const {
  for (const auto& j : judged_)
    if (j.id == id) return &j;
  return nullptr;
}

bool History::has_turn(int turn) const {
  return std::any_of(judged_.begin(), judged_.end(), [turn](const Judged& j) { return j.id.turn == turn; });
}

History History::before(int round) const {
  History h;
  for (const auto& j : judged_)
    if (j.round < round) h.add(j);
  for (const auto& f : failures_)
    if (f.round < round) h.add_failure(f.round, f.tokens, f.usd);
  h.rounds_done_ = std::min(rounds_done_, round - 1);
  return h;
}

std::vector<const Judged*> History::ranked_correct() const {
  std::vector<const Judged*> out;
  for (const auto& j : judged_)
    if (j.correct) out.push_back(&j);
  std::stable_sort(out.begin(), out.end(), [](const Judged* a, const Judged* b) {
    const double sa = a->speedup.value_or(0), sb = b->speedup.value_or(0);
    if (sa != sb) return sa > sb;
    return a->peak_fraction.value_or(0) > b->peak_fraction.value_or(0);
  });
  return out;
}

std::vector<const Judged*> History::best_per_structure() const {
  std::vector<const Judged*> out;
  std::set<std::string> seen;
  for (const Judged* j : ranked_correct())
    if (seen.insert(j->structure).second) out.push_back(j);
  return out;
}

bool History::first_of_structure(const Judged& j) const {
  return j.correct && std::none_of(judged_.begin(), judged_.end(), [&](const Judged& other) {
           return other.correct && other.structure == j.structure && other.id.turn < j.id.turn;
         });
}

std::optional<int> History::best_turn() const {
  std::optional<int> best;
  double best_speedup = -1;
  for (const auto& j : judged_)
    if (j.correct && (!best || j.speedup.value_or(0.0) > best_speedup)) {
      best = j.id.turn;
      best_speedup = j.speedup.value_or(0.0);
    }
  return best;
}

}  // namespace kf::agent::search
