// The KernelBench leaderboard's docs/assets/raw_data.json with its problems (agent/claims/release_formats.h).
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "agent/claims/kernelbench_formats.h"
#include "agent/claims/release_formats.h"
#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace kb = kernelbench;
namespace {

using json = nlohmann::json;

constexpr uintmax_t kMaxFileBytes = 256u << 20;
constexpr uintmax_t kMaxProblemBytes = 1u << 20;
// The leaderboard's page: "KernelBench Top Solutions Per Problem (Nvidia L40S GPU)". raw_data.json names none.
constexpr const char* kHardware = "L40S";

std::optional<int> whole(const json& e, const char* key) {
  if (!e.contains(key)) return std::nullopt;
  auto d = kb::lenient_number(e[key]);
  if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e6 || *d != std::floor(*d)) return std::nullopt;
  return static_cast<int>(*d);
}

std::optional<double> positive(const json& e, const char* key, std::vector<std::string>& warnings) {
  if (!e.contains(key) || e[key].is_null()) return std::nullopt;
  bool was_string = false;
  auto v = kb::lenient_number(e[key], &was_string);
  if (!v || !std::isfinite(*v) || *v <= 0) {
    warnings.push_back(std::string(key) + " " + e[key].dump().substr(0, 40) + " is not a positive number; ignored");
    return std::nullopt;
  }
  if (was_string) warnings.push_back(std::string(key) + " is a string; read as a number");
  return v;
}

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

fs::path raw_data_path(const fs::path& p) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return p;
  for (const char* rel : {"raw_data.json", "assets/raw_data.json", "docs/assets/raw_data.json"})
    if (fs::is_regular_file(p / rel, ec)) return p / rel;
  return p / "raw_data.json";
}

// The leaderboard's data.json ({"Level <L>: <N>_<Name>": [{"file": id, ...}, ...]}) names each solution's
// problem; raw_data.json's problem_id counts from 0 (its entry 0 of level 1 is 1_Square_matrix_multiplication_).
std::map<std::string, std::pair<int, int>> problems_by_file(const fs::path& data_json) {
  std::map<std::string, std::pair<int, int>> out;
  std::error_code ec;
  if (!fs::is_regular_file(data_json, ec) || fs::file_size(data_json, ec) > kMaxFileBytes) return out;
  auto text = read_file(data_json.string());
  if (!text) return out;
  auto doc = json::parse(*text, nullptr, false);
  if (!doc.is_object()) return out;
  static const std::regex key(R"(^Level (\d+): (\d+)_)");
  for (const auto& [name, list] : doc.items()) {
    std::smatch m;
    if (!std::regex_search(name, m, key) || !list.is_array()) continue;
    const int level = std::stoi(m[1]), number = std::stoi(m[2]);
    for (const auto& e : list)
      if (e.is_object() && e.contains("file") && e["file"].is_string())
        out[e["file"].get<std::string>()] = {level, number};
  }
  return out;
}

}  // namespace

Result<std::vector<PublishedRun>> read_leaderboard(const std::string& path) {
  const fs::path file = fs::absolute(raw_data_path(path)).lexically_normal();
  const fs::path problems = file.parent_path() / "problems";
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) return make_error("io.read", "cannot read '" + file.string() + "': " + ec.message());
  if (size > kMaxFileBytes)
    return make_error("import.too_large",
                      file.string() + " holds " + std::to_string(size) + " bytes, more than 256 MiB");
  auto text = read_file(file.string());
  if (!text) return text.error();
  auto doc = json::parse(kb::python_json_to_json(*text), nullptr, false);
  if (!doc.is_array())
    return make_error("import.format",
                      file.string() + " is not a JSON list of solutions (the leaderboard's raw_data.json)");
  const bool have_problems = fs::is_directory(problems, ec);
  const auto named = problems_by_file(file.parent_path() / "data.json");
  std::map<std::string, PublishedRun> runs;
  std::vector<std::string> general;
  int unreadable = 0;
  std::map<std::pair<int, int>, std::string> references;  // read once per problem
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& e = doc[i];
    const std::string where = file.string() + " entry " + std::to_string(i);
    if (!e.is_object() || !e.contains("model") || !e["model"].is_string()) {
      ++unreadable;
      general.push_back(where + ": not a solution object with a model; skipped");
      continue;
    }
    const std::string model = e["model"].get<std::string>();
    PublishedRun& run = runs[model];
    if (run.name.empty()) {
      run.name = "leaderboard-" + safe(model);
      run.path = file.string();
      run.format = "kernelbench-leaderboard";
    }
    ++run.entries;
    const int level = whole(e, "level").value_or(0), id = whole(e, "problem_id").value_or(-1);
    if (level < 1 || id < 0) {
      ++run.unreadable;
      run.warnings.push_back(where + ": no usable level and problem_id; skipped");
      continue;
    }
    PublishedSolution s;
    s.level = level;
    s.problem = id + 1;
    const std::string file_id = e.contains("file") && e["file"].is_string() ? e["file"].get<std::string>() : "";
    if (auto it = named.find(file_id); it != named.end() && it->second != std::make_pair(level, id + 1)) {
      s.warnings.push_back("data.json names this solution level " + std::to_string(it->second.first) + " problem " +
                           std::to_string(it->second.second) + ", raw_data.json level " + std::to_string(level) +
                           " problem_id " + std::to_string(id) + ": data.json's problem is taken");
      s.level = it->second.first;
      s.problem = it->second.second;
    }
    s.code = e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>() : "";
    if (s.code.find_first_not_of(" \t\r\n") == std::string::npos) {
      ++run.entries_without_solution;
      continue;
    }
    std::string stem = safe(file_id);
    if (stem.empty() || stem.size() > 100) stem = "entry_" + std::to_string(i);
    s.file = stem + ".py";
    s.origin = file.string() + "#" + std::to_string(i);
    corpus::Claim& c = s.claim;
    c.model = model;
    c.hardware = kHardware;
    c.baseline_kind = "eager";
    // The leaderboard lists solutions that passed KernelBench's check, with their timing.
    c.compiled = true;
    c.correct = true;
    c.runtime_ms = positive(e, "kernel_eval_time", s.warnings);
    auto eager = positive(e, "torch_speedup", s.warnings), compiled = positive(e, "torch_compile_speedup", s.warnings);
    auto eager_ms = positive(e, "baseline_torch_time", s.warnings);
    auto compile_ms = positive(e, "baseline_torch_compile_time", s.warnings);
    if (eager) c.speedups.push_back({"eager", *eager, eager_ms});
    if (compiled) c.speedups.push_back({"torch_compile", *compiled, compile_ms});
    c.speedup = eager;
    c.baseline_ms = eager_ms;
    json raw = e;
    raw.erase("code");
    c.raw = kb::bounded_json(raw);
    const auto key = std::make_pair(s.level, s.problem);
    auto it = references.find(key);
    if (it == references.end()) {
      std::string ref;
      const fs::path p = problems / ("l" + std::to_string(s.level) + "_p" + std::to_string(s.problem) + ".py");
      if (have_problems && fs::is_regular_file(p, ec) && !fs::is_symlink(p, ec) &&
          fs::file_size(p, ec) <= kMaxProblemBytes) {
        if (auto t = read_file(p.string())) ref = *t;
      }
      it = references.emplace(key, ref).first;
    }
    if (!it->second.empty()) {
      s.reference_code = it->second;
      s.reference_origin =
          (problems / ("l" + std::to_string(s.level) + "_p" + std::to_string(s.problem) + ".py")).string();
    } else {
      s.warnings.push_back(have_problems ? "the leaderboard ships no problems/l" + std::to_string(s.level) + "_p" +
                                               std::to_string(s.problem) + ".py: reference not compared"
                                         : "no problems/ folder next to raw_data.json: reference not compared");
    }
    run.solutions.push_back(std::move(s));
  }
  std::vector<PublishedRun> out;
  for (auto& [model, run] : runs) out.push_back(std::move(run));
  if (out.empty())
    return make_error("import.format", file.string() + " holds no solution with a model (" +
                                           std::to_string(unreadable) + " entries unreadable)");
  // Entries without a model belong to no run: the first run carries them.
  out.front().unreadable += unreadable;
  for (auto& w : general) out.front().warnings.push_back(std::move(w));
  return out;
}

}  // namespace kf::agent
