// evolve: a population of kernels per island. Each round, per island, `children` asks: first the repairs of the
// island's failed children of the last round (fed back once, like a refine turn), then children of parents chosen
// by tournament: `tournament` members drawn (seeded), the winner the highest speedup / the island's best speedup
// + `diversity` x novelty, where novelty is the share of the island whose features differ from the member's
// (what bounds it, memory or compute, and how many loops its source writes). The prompt carries the parent and
// up to `inspirations` other strong kernels with their measured figures. Every `migrate_every` rounds each
// island's best joins the next island (a ring). The draws depend only on the seed, the unit's history, the round
// and the island, so a resumed search draws the same parents.
#include <algorithm>
#include <cctype>
#include <random>
#include <set>

#include "agent/search/strategy.h"

namespace kf::agent::search {
namespace {

// Coarse features of a kernel for the diversity term: its bound and its number of loops (capped).
std::string features(const Judged& j) {
  int loops = 0;
  for (size_t at = j.answer.find("for"); at != std::string::npos && loops < 6; at = j.answer.find("for", at + 3)) {
    const size_t after = j.answer.find_first_not_of(" \t", at + 3);
    const char before = at == 0 ? ' ' : j.answer[at - 1];
    const bool word_start = !(std::isalnum(static_cast<unsigned char>(before)) || before == '_');
    if (word_start && after != std::string::npos && j.answer[after] == '(') ++loops;
  }
  return j.bound_by + "/" + std::to_string(loops);
}

class Evolve final : public Strategy {
 public:
  Evolve(EvolveSettings s, uint64_t seed) : s_(s), seed_(seed) {}
  std::string name() const override { return "evolve"; }

  std::vector<Ask> next_round(const History& history, int round, int max_asks) const override {
    const int islands = std::max(1, s_.islands);
    std::vector<std::vector<Ask>> per_island;
    for (int i = 0; i < islands; ++i) per_island.push_back(island_asks(history, round, i));
    std::vector<Ask> asks;  // interleaved, so that a budget's cut spares no island
    for (size_t k = 0; static_cast<int>(asks.size()) < max_asks; ++k) {
      bool any = false;
      for (const auto& list : per_island)
        if (k < list.size() && static_cast<int>(asks.size()) < max_asks) {
          asks.push_back(list[k]);
          any = true;
        }
      if (!any) break;
    }
    return asks;
  }

 private:
  std::vector<Ask> island_asks(const History& history, int round, int island) const {
    const int children = std::max(1, s_.children);
    std::vector<Ask> asks;
    for (const auto& j : history.judged())
      if (static_cast<int>(asks.size()) < children && j.round == round - 1 && j.island == island && !j.correct &&
          !is_repair(history, j))
        asks.push_back({Ask::Prompt::improve, {j.id}, {}, island});
    const auto population = island_population(history, island, round);
    std::mt19937_64 rng(seed_ ^ (0x9E3779B97F4A7C15ull * static_cast<uint64_t>(round * 1009 + island + 1)));
    while (static_cast<int>(asks.size()) < children) {
      if (population.empty()) {
        asks.push_back({Ask::Prompt::first_turn, {}, {}, island});
        continue;
      }
      const Judged* parent = tournament(population, rng);
      asks.push_back({Ask::Prompt::improve, {parent->id}, inspirations(history, population, parent), island});
    }
    return asks;
  }

  // A failed child is fed back once: a child that was itself a repair of a failed kernel is not repaired again.
  static bool is_repair(const History& history, const Judged& j) {
    if (j.parents.empty()) return false;
    const Judged* parent = history.find(j.parents.front());
    return parent && !parent->correct;
  }

  // The island's best correct kernels (its own and those that migrated to it), best first, at most `population`.
  std::vector<const Judged*> island_population(const History& history, int island, int round) const {
    const int islands = std::max(1, s_.islands);
    std::vector<const Judged*> members;
    std::set<corpus::RecordId> seen;
    auto take = [&](const Judged* j) {
      if (seen.insert(j->id).second) members.push_back(j);
    };
    const auto ranked = history.ranked_correct();
    for (const Judged* j : ranked)
      if (j->island == island) take(j);
    const int from = (island + islands - 1) % islands;
    for (int m = 2; s_.migrate_every > 0 && islands > 1 && m <= round; ++m)
      if ((m - 1) % s_.migrate_every == 0)
        for (const Judged* j : ranked)
          if (j->island == from && j->round < m) {
            take(j);
            break;
          }
    std::stable_sort(members.begin(), members.end(), [&](const Judged* a, const Judged* b) {
      return std::find(ranked.begin(), ranked.end(), a) < std::find(ranked.begin(), ranked.end(), b);
    });
    const size_t keep = static_cast<size_t>(std::max(1, s_.population));
    if (members.size() > keep) members.resize(keep);
    return members;
  }

  const Judged* tournament(const std::vector<const Judged*>& population, std::mt19937_64& rng) const {
    const double top = std::max(1e-12, population.front()->speedup.value_or(0));
    auto novelty = [&](const Judged* j) {
      const std::string mine = features(*j);
      double differ = 0;
      for (const Judged* other : population) differ += features(*other) != mine;
      return differ / static_cast<double>(population.size());
    };
    const Judged* winner = nullptr;
    double winner_score = 0;
    for (int t = 0; t < std::max(1, s_.tournament); ++t) {
      const Judged* drawn = population[static_cast<size_t>(rng() % population.size())];
      const double score = drawn->speedup.value_or(0) / top + s_.diversity * novelty(drawn);
      if (!winner || score > winner_score) {
        winner = drawn;
        winner_score = score;
      }
    }
    return winner;
  }

  // The strongest other kernels: the island's first, then the unit's.
  std::vector<corpus::RecordId> inspirations(const History& history, const std::vector<const Judged*>& population,
                                             const Judged* parent) const {
    const size_t wanted = static_cast<size_t>(std::clamp(s_.inspirations, 0, 2));
    std::vector<corpus::RecordId> out;
    auto offer = [&](const Judged* j) {
      if (out.size() < wanted && j != parent && std::find(out.begin(), out.end(), j->id) == out.end())
        out.push_back(j->id);
    };
    for (const Judged* j : population) offer(j);
    for (const Judged* j : history.ranked_correct()) offer(j);
    return out;
  }

  EvolveSettings s_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<Strategy> make_evolve(const SearchSettings& s) { return std::make_unique<Evolve>(s.evolve, s.seed); }

}  // namespace kf::agent::search
