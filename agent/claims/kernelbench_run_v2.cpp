// KernelBench's newer run layout: problem_<P>_kernel.py + detailed_results.json / checkpoint.json
// (agent/claims/release_formats.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "agent/claims/kernelbench_formats.h"
#include "agent/claims/release_formats.h"
#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace kb = kernelbench;
namespace {

using json = nlohmann::json;

constexpr uintmax_t kMaxResultsBytes = 64u << 20;
constexpr uintmax_t kMaxSolutionBytes = 4u << 20;

std::optional<int> whole(const json& e, const char* key) {
  if (!e.is_object() || !e.contains(key)) return std::nullopt;
  auto d = kb::lenient_number(e[key]);
  if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e6 || *d != std::floor(*d)) return std::nullopt;
  return static_cast<int>(*d);
}

std::string text_at(const json& e, const char* a, const char* b) {
  if (!e.is_object() || !e.contains(a) || !e[a].is_object()) return "";
  const json& o = e[a];
  return o.contains(b) && o[b].is_string() ? o[b].get<std::string>() : "";
}

// detailed_results.json when there is one (a finished run), else checkpoint.json (a run under way).
std::optional<fs::path> results_file(const fs::path& folder) {
  std::error_code ec;
  for (const char* name : {"detailed_results.json", "checkpoint.json"})
    if (fs::is_regular_file(folder / name, ec) && !fs::is_symlink(folder / name, ec)) return folder / name;
  return std::nullopt;
}

}  // namespace

Result<PublishedRun> read_kernelbench_run_v2(const std::string& folder_arg, std::optional<int> wanted_level) {
  const fs::path folder = fs::absolute(folder_arg).lexically_normal();
  PublishedRun run;
  run.name = folder.filename().string();
  run.path = folder.string();
  run.format = "kernelbench-run-v2";
  json doc;
  std::string results_name;
  if (auto f = results_file(folder)) {
    results_name = f->string();
    std::error_code ec;
    const uintmax_t size = fs::file_size(*f, ec);
    auto text = !ec && size <= kMaxResultsBytes ? read_file(f->string())
                                                : Result<std::string>(make_error("import.too_large", "too large"));
    if (!text) {
      run.warnings.push_back(f->string() + ": " + text.error().message + "; solutions imported without claims");
    } else {
      doc = json::parse(kb::python_json_to_json(*text), nullptr, false);
      if (!doc.is_object()) {
        run.warnings.push_back(f->string() + " is not a JSON object; solutions imported without claims");
        doc = json();
      }
    }
  } else {
    run.warnings.push_back(folder.string() +
                           " has neither detailed_results.json nor checkpoint.json: solutions "
                           "imported without claims");
  }
  const std::string model = !text_at(doc, "run_info", "model").empty() ? text_at(doc, "run_info", "model")
                                                                       : text_at(doc, "config", "model_name");
  std::optional<int> level = wanted_level;
  if (!level && doc.is_object() && doc.contains("run_info")) level = whole(doc["run_info"], "level");
  if (!level) {
    static const std::regex level_name(R"(level_?(\d{1,2})(\D|$))", std::regex::icase);
    std::smatch m;
    const std::string name = run.name;
    if (std::regex_search(name, m, level_name)) level = std::stoi(m[1]);
  }
  if (!level)
    return make_error("import.levels", "run '" + run.name +
                                           "' names no level (no run_info.level, no level<L> in "
                                           "its folder name): pass --level L");
  run.level = level.value_or(0);

  std::map<int, json> entries;
  if (doc.is_object() && doc.contains("results")) {
    if (!doc["results"].is_array()) {
      run.warnings.push_back(results_name + ": \"results\" is not a list; solutions imported without claims");
    } else {
      for (size_t i = 0; i < doc["results"].size(); ++i) {
        const json& e = doc["results"][i];
        ++run.entries;
        auto p = whole(e, "problem_id");
        if (!p || *p < 1) {
          ++run.unreadable;
          run.warnings.push_back(results_name + " result " + std::to_string(i) + ": no usable problem_id; skipped");
          continue;
        }
        if (!entries.emplace(*p, e).second) {
          ++run.unreadable;
          run.warnings.push_back(results_name + " result " + std::to_string(i) + ": problem " + std::to_string(*p) +
                                 " again; the first entry is kept");
        }
      }
    }
  }

  std::vector<std::pair<int, fs::path>> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    auto n = parse_v2_solution_name(e.path().filename().string());
    if (!n) continue;
    if (e.is_symlink(ec) || !e.is_regular_file(ec)) {
      run.warnings.push_back(e.path().string() + ": not a plain file; ignored");
      continue;
    }
    files.emplace_back(*n, e.path());
  }
  std::sort(files.begin(), files.end());
  std::set<int> with_file;
  for (const auto& [number, path] : files) {
    PublishedSolution s;
    s.level = run.level;
    s.problem = number;
    s.file = path.filename().string();
    s.origin = path.string();
    const uintmax_t size = fs::file_size(path, ec);
    if (ec || size > kMaxSolutionBytes) {
      run.warnings.push_back(path.string() + ": unreadable or larger than 4 MiB; not imported");
      continue;
    }
    auto text = read_file(path.string());
    if (!text) {
      run.warnings.push_back(text.error().message + "; not imported");
      continue;
    }
    s.code = std::move(*text);
    with_file.insert(number);
    corpus::Claim& c = s.claim;
    c.model = model;
    c.baseline_kind = "eager";
    auto it = entries.find(number);
    if (it == entries.end()) {
      if (!entries.empty()) ++run.solutions_without_entry;
      if (!results_name.empty())
        s.warnings.push_back("no entry in " + fs::path(results_name).filename().string() + ": nothing claimed");
    } else {
      const json& e = it->second;
      c.raw = kb::bounded_json(e);
      const json r = e.contains("eval_result") && e["eval_result"].is_object() ? e["eval_result"] : json::object();
      auto flag = [&](const char* key) -> std::optional<bool> {
        if (!r.contains(key) || r[key].is_null()) return std::nullopt;
        bool odd = false;
        auto b = kb::lenient_bool(r[key], &odd);
        if (!b)
          s.warnings.push_back(std::string("eval_result.") + key + " " + r[key].dump().substr(0, 40) +
                               " is not a boolean; ignored");
        return b;
      };
      c.compiled = flag("compiled");
      c.correct = flag("correctness");
      if (r.contains("runtime")) {
        auto v = kb::lenient_number(r["runtime"]);
        if (v && std::isfinite(*v) && *v > 0) c.runtime_ms = v;
      }
      c.hardware = text_at(r, "metadata", "hardware");
      if (r.empty())
        s.warnings.push_back("the entry has no eval_result (generation " +
                             std::string(e.value("success", false) ? "succeeded" : "failed") + "): nothing claimed");
    }
    run.solutions.push_back(std::move(s));
  }
  for (const auto& [number, e] : entries)
    if (!with_file.count(number)) ++run.entries_without_solution;
  return run;
}

}  // namespace kf::agent
