#include "corpus/shard.h"

#include <charconv>
#include <cstdio>

#include "core/hash.h"

namespace kf::corpus {

std::string Shard::file_name() const {
  if (!sharded()) return "evaluations.jsonl";
  return "evaluations.shard-" + std::to_string(index) + "-of-" + std::to_string(count) + ".jsonl";
}

std::optional<Shard> Shard::of_file(const std::string& name) {
  int i = 0, n = 0, used = 0;
  if (std::sscanf(name.c_str(), "evaluations.shard-%d-of-%d.jsonl%n", &i, &n, &used) != 2) return std::nullopt;
  if (static_cast<size_t>(used) != name.size() || n < 1 || i < 0 || i >= n) return std::nullopt;
  return Shard{i, n};
}

Result<Shard> Shard::parse(const std::string& text) {
  auto bad = [&] {
    return make_error("shard.syntax", "--shard '" + text +
                                          "' is not I/N with 0 <= I < N, e.g. 0/4 (in a Slurm array: "
                                          "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
  };
  auto slash = text.find('/');
  if (slash == std::string::npos) return bad();
  Shard s;
  const char* b = text.data();
  auto r1 = std::from_chars(b, b + slash, s.index);
  auto r2 = std::from_chars(b + slash + 1, b + text.size(), s.count);
  if (r1.ec != std::errc() || r1.ptr != b + slash || r2.ec != std::errc() || r2.ptr != b + text.size()) return bad();
  if (s.count < 1 || s.index < 0 || s.index >= s.count || s.count > 100000) return bad();
  return s;
}

int Shard::shard_of(const UnitKey& key, int count) {
  if (count <= 1) return 0;
  // The first 8 bytes of sha256("config\nproblem\nsample") as a number, modulo N.
  const std::string h = sha256_hex(key.config + "\n" + key.problem + "\n" + std::to_string(key.sample));
  uint64_t v = 0;
  for (int i = 0; i < 16; ++i) {
    char c = h[static_cast<size_t>(i)];
    v = (v << 4) | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return static_cast<int>(v % static_cast<uint64_t>(count));
}

}  // namespace kf::corpus
