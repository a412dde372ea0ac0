#include "agent/claims/kernelbench_dataset.h"

#include <filesystem>
#include <vector>

#include "agent/claims/kernelbench_formats.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace kb = kernelbench;

std::optional<ProblemInfo> KernelBenchDataset::find(int level, int number, std::string& why) {
  auto key = std::make_pair(level, number);
  if (auto it = cache_.find(key); it != cache_.end()) {
    why = it->second.second;
    return it->second.first;
  }
  auto& slot = cache_[key];
  slot.first = look_up(level, number, slot.second);
  why = slot.second;
  return slot.first;
}

std::optional<ProblemInfo> KernelBenchDataset::look_up(int level, int number, std::string& why) {
  if (dir_.empty()) {
    why = "no --kernelbench dataset folder given";
    return std::nullopt;
  }
  const fs::path folder = fs::path(dir_) / ("level" + std::to_string(level));
  std::vector<fs::path> matches;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string n = e.path().filename().string();
    if (e.path().extension() == ".py" && kb::problem_number(n) == number) matches.push_back(e.path());
  }
  if (ec) {
    why = "the dataset has no folder " + folder.string();
    return std::nullopt;
  }
  if (matches.size() != 1) {
    why = matches.empty() ? folder.string() + " has no problem " + std::to_string(number) + "_*.py"
                          : folder.string() + " has several problems numbered " + std::to_string(number);
    return std::nullopt;
  }
  auto p = load_problem(matches.front().string());
  if (!p) {
    why = p.error().message;
    return std::nullopt;
  }
  return *p;
}

std::string run_dataset(const std::string& run_path, int level) {
  if (run_path.empty() || level <= 0) return "";
  fs::path p = fs::path(run_path);
  std::error_code ec;
  for (int up = 0; up < 3 && p.has_parent_path() && p.parent_path() != p; ++up) {
    p = p.parent_path();
    if (fs::is_directory(p / "KernelBench" / ("level" + std::to_string(level)), ec))
      return (p / "KernelBench").string();
  }
  return "";
}

}  // namespace kf::agent
