// evolve: a population of kernels per island. Each round, per island, `children` asks: first the repairs of the
// island's failed children of the last round (fed back once, like a refine turn), then a follow-up of each of
// the island's last-round children whose features the island had not seen (a new design's first version is
// often slower than the tuned old one: it gets one child before the tournament judges it), then children of
// parents chosen by tournament: `tournament` members drawn (seeded), the winner the highest speedup / the
// island's best speedup + `diversity` x rarity, where rarity is the share of the island's correct kernels whose
// features differ from the member's. A kernel's features are what bounds it (memory or compute) and its
// structure (agent/search/structure.h); the population holds the fastest kernel of each feature, the best
// `population` of them, so copies and variations of one design cannot crowd out another. The prompt carries
// the parent and up to `inspirations` other strong kernels with their measured figures. Every `migrate_every`
// rounds each island's best joins the next island (a ring). The draws depend only on the seed, the unit's
// history, the round and the island, so a resumed search draws the same parents.
#include <algorithm>
#include <random>
#include <set>

#include "agent/search/strategy.h"

namespace kf::agent::search {
namespace {

std::string features(const Judged& j) { return j.bound_by + "/" + j.structure; }

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
    const auto members = island_members(history, island, round);
    const auto population = best_per_feature(members);
    for (const Judged* j : members)
      if (static_cast<int>(asks.size()) < children && j->round == round - 1 && j->island == island &&
          first_of_features(members, *j))
        asks.push_back({Ask::Prompt::improve, {j->id}, inspirations(history, population, j), island});
    std::mt19937_64 rng(seed_ ^ (0x9E3779B97F4A7C15ull * static_cast<uint64_t>(round * 1009 + island + 1)));
    while (static_cast<int>(asks.size()) < children) {
      if (population.empty()) {
        asks.push_back({Ask::Prompt::first_turn, {}, {}, island});
        continue;
      }
      const Judged* parent = tournament(population, members, rng);
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

  // The island's correct kernels (its own and those that migrated to it), best first.
  std::vector<const Judged*> island_members(const History& history, int island, int round) const {
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
    return members;
  }

  // The population: the fastest member of each feature, at most `population` of them, best first.
  std::vector<const Judged*> best_per_feature(const std::vector<const Judged*>& members) const {
    std::vector<const Judged*> out;
    std::set<std::string> seen;
    for (const Judged* j : members)
      if (out.size() < static_cast<size_t>(std::max(1, s_.population)) && seen.insert(features(*j)).second)
        out.push_back(j);
    return out;
  }

  // Whether no member from an earlier turn has `j`'s features.
  static bool first_of_features(const std::vector<const Judged*>& members, const Judged& j) {
    return std::none_of(members.begin(), members.end(), [&](const Judged* other) {
      return other->id.turn < j.id.turn && features(*other) == features(j);
    });
  }

  const Judged* tournament(const std::vector<const Judged*>& population, const std::vector<const Judged*>& members,
                           std::mt19937_64& rng) const {
    const double top = std::max(1e-12, population.front()->speedup.value_or(0));
    auto rarity = [&](const Judged* j) {
      const std::string mine = features(*j);
      double differ = 0;
      for (const Judged* other : members) differ += features(*other) != mine;
      return differ / static_cast<double>(members.size());
    };
    const Judged* winner = nullptr;
    double winner_score = 0;
    for (int t = 0; t < std::max(1, s_.tournament); ++t) {
      const Judged* drawn = population[static_cast<size_t>(rng() % population.size())];
      const double score = drawn->speedup.value_or(0) / top + s_.diversity * rarity(drawn);
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
