#pragma once
// `kforge run --shard I/N`: a deterministic share of a campaign's units, by a hash of (config, problem,
// sample), and the corpus file each shard appends to.
#include <optional>
#include <string>

#include "core/result.h"
#include "corpus/record.h"

namespace kf::corpus {

struct Shard {
  int index = 0;  // I, from 0
  int count = 1;  // N; 1 = the whole campaign
  bool sharded() const { return count > 1; }
  bool owns(const UnitKey& key) const { return shard_of(key, count) == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
  // The file this shard appends to: evaluations.jsonl unsharded, else evaluations.shard-I-of-N.jsonl.
  std::string file_name() const;
  // The shard whose file this is (evaluations.shard-I-of-N.jsonl); nullopt for any other name.
  static std::optional<Shard> of_file(const std::string& file_name);
  // "I/N" with 0 <= I < N.
  static Result<Shard> parse(const std::string& text);
  // Which of `count` shards a unit belongs to (stable across machines and kforge versions).
  static int shard_of(const UnitKey& key, int count);
};

}  // namespace kf::corpus
