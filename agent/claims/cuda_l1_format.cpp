// CUDA-L1's optimized_cuda_code/<gpu>.json (agent/claims/release_formats.h).
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

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

std::string hardware_of(const std::string& stem) {
  static const std::map<std::string, std::string> named = {
      {"3090", "RTX 3090"}, {"a100", "A100"}, {"h100", "H100"}, {"h20", "H20"}, {"l40", "L40"}};
  auto it = named.find(stem);
  return it == named.end() ? stem : it->second;
}

std::optional<int> whole(const json& v) {
  auto d = kb::lenient_number(v);
  if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e6 || *d != std::floor(*d)) return std::nullopt;
  return static_cast<int>(*d);
}

std::string text_field(const json& e, const char* key) {
  return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : "";
}

}  // namespace

Result<PublishedRun> read_cuda_l1(const std::string& file) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) return make_error("io.read", "cannot read '" + file + "': " + ec.message());
  if (size > kMaxFileBytes)
    return make_error("import.too_large", file + " holds " + std::to_string(size) + " bytes, more than 256 MiB");
  auto text = read_file(file);
  if (!text) return text.error();
  PublishedRun run;
  const std::string stem = fs::path(file).stem().string();
  run.name = "cuda-l1-" + stem;
  run.path = fs::absolute(file).lexically_normal().string();
  run.format = "cuda-l1";
  const std::string hardware = hardware_of(stem);
  static const std::vector<std::pair<const char*, const char*>> scores = {
      {"score_default", "eager"},
      {"score_torch_compile_default", "torch_compile"},
      {"score_torch_compile_reduce_overhead", "torch_compile_reduce_overhead"},
      {"score_cuda_graph", "cuda_graph"},
      {"score_cudnn", "cudnn"}};
  std::istringstream in(*text);
  std::string line;
  int line_no = 0;
  std::map<std::pair<int, int>, int> seen;  // (level, task) -> line
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++run.entries;
    const std::string where = run.path + " line " + std::to_string(line_no);
    auto e = json::parse(kb::python_json_to_json(line), nullptr, false);
    if (!e.is_object()) {
      ++run.unreadable;
      run.warnings.push_back(where + ": not a JSON object; skipped");
      continue;
    }
    const int level = e.contains("level_id") ? whole(e["level_id"]).value_or(0) : 0;
    const int task = e.contains("task_id") ? whole(e["task_id"]).value_or(0) : 0;
    if (level < 1 || task < 1) {
      ++run.unreadable;
      run.warnings.push_back(where + ": no usable level_id and task_id; skipped");
      continue;
    }
    if (auto [it, fresh] = seen.emplace(std::make_pair(level, task), line_no); !fresh) {
      ++run.unreadable;
      run.warnings.push_back(where + ": level " + std::to_string(level) + " task " + std::to_string(task) +
                             " again (first on line " + std::to_string(it->second) + "); skipped");
      continue;
    }
    PublishedSolution s;
    s.level = level;
    s.problem = task;
    s.code = text_field(e, "custom_code");
    const auto first = s.code.find_first_not_of(" \t\r\n");
    // The release writes Python's str(None) for some tasks' code while keeping their scores: a claimed speedup
    // with nothing behind it, which is not a solution to judge (it would "fail" for want of a ModelNew).
    const bool none_text =
        first != std::string::npos && s.code.substr(first, s.code.find_last_not_of(" \t\r\n") + 1 - first) == "None";
    if (first == std::string::npos || none_text) {
      ++run.entries_without_solution;
      if (e.contains("score_default") && !e["score_default"].is_null())
        run.warnings.push_back(where + ": level " + std::to_string(level) + " task " + std::to_string(task) +
                               " claims a speedup (score_default " + e["score_default"].dump() +
                               ") but its custom_code is " + (none_text ? "the text None" : "empty") +
                               ": a claim without a solution; not imported");
      continue;
    }
    s.file = stem + "_level_" + std::to_string(s.level) + "_task_" + std::to_string(s.problem) + ".py";
    s.origin = run.path + "#line" + std::to_string(line_no);
    s.reference_code = text_field(e, "ref_code");
    if (!s.reference_code.empty()) s.reference_origin = s.origin + ".ref_code";
    corpus::Claim& c = s.claim;
    c.hardware = hardware;
    c.model = "CUDA-L1";
    c.baseline_kind = "eager";
    json raw = {{"level_id", level}, {"task_id", task}};
    for (const auto& [key, kind] : scores) {
      if (!e.contains(key) || e[key].is_null()) continue;
      raw[key] = e[key];
      bool was_string = false;
      auto v = kb::lenient_number(e[key], &was_string);
      if (!v || !std::isfinite(*v) || *v <= 0) {
        s.warnings.push_back(std::string(key) + " " + e[key].dump() + " is not a speedup; ignored");
        continue;
      }
      if (was_string) s.warnings.push_back(std::string(key) + " is a string; read as " + std::to_string(*v));
      c.speedups.push_back({kind, *v, std::nullopt});
    }
    for (const char* code_key : {"cuda_graph_code", "cudnn_code"})
      if (auto t = text_field(e, code_key); !t.empty()) raw[std::string(code_key) + "_chars"] = t.size();
    c.raw = raw;
    c.speedup = c.speedup_over("eager");
    // CUDA-L1 scores only solutions that passed its correctness check: a score is a claim of correctness.
    if (!c.speedups.empty()) {
      c.compiled = true;
      c.correct = true;
    } else {
      s.warnings.push_back("no score: nothing claimed");
    }
    run.solutions.push_back(std::move(s));
  }
  return run;
}

}  // namespace kf::agent
