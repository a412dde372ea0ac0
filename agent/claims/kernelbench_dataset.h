#pragma once
// A KernelBench dataset folder (level1/, level2/, ...) as `kforge import` reads it: its problems by (level,
// number), each read once; and the dataset a run folder ships in, when it does.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "agent/campaign/problem_set.h"

namespace kf::agent {

class KernelBenchDataset {
 public:
  explicit KernelBenchDataset(std::string dir) : dir_(std::move(dir)) {}
  // nullopt (with `why`) when the dataset has no such problem or its file cannot be read.
  std::optional<ProblemInfo> find(int level, int number, std::string& why);

 private:
  std::optional<ProblemInfo> look_up(int level, int number, std::string& why);
  std::string dir_;
  std::map<std::pair<int, int>, std::pair<std::optional<ProblemInfo>, std::string>> cache_;
};

// The KernelBench dataset a run folder was made against, when the run ships inside a KernelBench checkout
// (<checkout>/runs/<run>/ next to <checkout>/KernelBench/level<L>/): its problems are the run's own reference.
std::string run_dataset(const std::string& run_path, int level);

}  // namespace kf::agent
