#pragma once
// Where a searched candidate came from: the strategy that asked for it, the round, the island (evolve) and the
// records it was derived from. Part of a corpus record (Record::lineage, key "lineage"); the record's owner
// writes and reads it through to_json / from_json here. Records of `refine` (one linear conversation, the parent
// is the previous turn) carry none, so their corpus stays as before lineage existed.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::corpus {

// A record of the same configuration and problem: its unit's sample and its turn there.
struct RecordId {
  int sample = 0;
  int turn = 0;
  bool operator==(const RecordId&) const = default;
  auto operator<=>(const RecordId&) const = default;
};

struct Lineage {
  std::string strategy;                // refine | best_of_n | beam | evolve (docs/campaigns.md)
  int round = 0;                       // 1-based round of the search that asked for it
  std::optional<int> island;           // evolve: the island the child belongs to
  std::vector<RecordId> parents;       // the kernel(s) the prompt asked to improve; empty for a first turn
  std::vector<RecordId> inspirations;  // other kernels shown with their figures (evolve); empty otherwise

  bool operator==(const Lineage&) const = default;
  nlohmann::json to_json() const;
  // Errors name the field that is missing or has the wrong type ("lineage.parents[1].turn ...").
  static Result<Lineage> from_json(const nlohmann::json& j);
};

}  // namespace kf::corpus
