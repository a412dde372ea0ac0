#include "agent/claims/release_formats.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace kf::agent {
namespace fs = std::filesystem;

namespace {

// Whether a file's first line (up to 16 MiB: a CUDA-L1 line holds whole sources) is a CUDA-L1 entry.
bool first_line_is_cuda_l1(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string line;
  char c;
  while (line.size() < (16u << 20) && in.get(c) && c != '\n') line += c;
  auto j = nlohmann::json::parse(line, nullptr, false);
  return j.is_object() && j.contains("level_id") && j.contains("task_id") && j.contains("custom_code");
}

std::optional<fs::path> leaderboard_file(const fs::path& p) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return p.filename() == "raw_data.json" ? std::optional<fs::path>(p) : std::nullopt;
  for (const char* rel : {"raw_data.json", "assets/raw_data.json", "docs/assets/raw_data.json"})
    if (fs::is_regular_file(p / rel, ec)) return p / rel;
  return std::nullopt;
}

}  // namespace

std::optional<int> parse_v2_solution_name(const std::string& n) {
  const std::string head = "problem_", tail = "_kernel.py";
  if (n.size() <= head.size() + tail.size() || n.rfind(head, 0) != 0 ||
      n.compare(n.size() - tail.size(), tail.size(), tail) != 0)
    return std::nullopt;
  const std::string digits = n.substr(head.size(), n.size() - head.size() - tail.size());
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
  return std::stoi(digits);
}

std::vector<std::string> cuda_l1_files(const std::string& folder) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.is_regular_file(ec) && !e.is_symlink(ec) && e.path().extension() == ".json" &&
        first_line_is_cuda_l1(e.path()))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> release_format(const std::string& path) {
  const fs::path p(path);
  std::error_code ec;
  if (leaderboard_file(p)) return "kernelbench-leaderboard";
  if (fs::is_regular_file(p, ec)) {
    if (p.extension() == ".json" && first_line_is_cuda_l1(p)) return "cuda-l1";
    return std::nullopt;
  }
  if (!fs::is_directory(p, ec)) return std::nullopt;
  bool v2 = false;
  for (const auto& e : fs::directory_iterator(p, ec))
    if (parse_v2_solution_name(e.path().filename().string())) v2 = true;
  if (v2) return "kernelbench-run-v2";
  if (!cuda_l1_files(path).empty()) return "cuda-l1-folder";
  return std::nullopt;
}

}  // namespace kf::agent
