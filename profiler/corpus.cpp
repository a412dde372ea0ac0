#include "profiler/corpus.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/files.h"

namespace kf::profiler {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Result<CorpusSummary> summarize_corpus_text(const std::string& jsonl, const std::string& origin) {
  CorpusSummary out;
  std::map<std::string, std::map<std::string, std::vector<double>>> ref_times;
  size_t pos = 0, line_no = 0;
  while (pos < jsonl.size()) {
    size_t eol = jsonl.find('\n', pos);
    if (eol == std::string::npos) eol = jsonl.size();
    const std::string line = jsonl.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = origin + " line " + std::to_string(line_no);
    nlohmann::json e = nlohmann::json::parse(line, nullptr, false);
    if (e.is_discarded() || !e.is_object()) {
      return make_error("corpus.invalid", where + " is not a JSON object; the corpus is damaged.");
    }
    // Only evaluation records carry kernels; provider failures and unit markers are skipped.
    if (e.contains("kind") && e["kind"] != "evaluation") continue;
    try {
      const std::string config = e.at("config").get<std::string>();
      const auto& problem = e.at("problem");
      const std::string name = problem.at("name").get<std::string>();
      const std::string category = problem.value("category", std::string());
      auto& outcome = out.configs[config][name];
      outcome.name = name;
      if (outcome.category.empty()) outcome.category = category;
      ++out.evaluations;
      if (!e.contains("verdict") || !e["verdict"].is_object()) continue;
      const auto& v = e["verdict"];
      if (v.contains("ref_time_ms") && v["ref_time_ms"].is_number() && v["ref_time_ms"].get<double>() > 0) {
        ref_times[config][name].push_back(v["ref_time_ms"].get<double>());
      }
      // The agent computes "best" when it reads a corpus (kf::agent::load_corpus) rather than storing it;
      // a raw corpus line has no flag, and any correct kernel may be the best since the maximum is kept.
      const bool best = !e.contains("best") || (e["best"].is_boolean() && e["best"].get<bool>());
      const bool correct = v.contains("correct") && v["correct"].is_boolean() && v["correct"].get<bool>();
      if (best && correct && v.contains("speedup") && v["speedup"].is_number()) {
        const double s = v["speedup"].get<double>();
        if (s > 0 && (!outcome.best_speedup || s > *outcome.best_speedup)) outcome.best_speedup = s;
      }
    } catch (const nlohmann::json::exception& ex) {
      return make_error("corpus.invalid", where + " lacks a field the projection needs (config, problem.name): " +
                                              ex.what());
    }
  }
  for (auto& [config, problems] : out.configs) {
    for (auto& [name, outcome] : problems) {
      auto it = ref_times[config].find(name);
      if (it != ref_times[config].end() && !it->second.empty()) outcome.ref_time_ms = median(it->second);
    }
  }
  return out;
}

Result<CorpusSummary> read_corpus(const std::string& dir) {
  const std::string path = dir + "/evaluations.jsonl";
  auto text = read_file(path);
  if (!text) {
    return make_error("corpus.missing", "cannot read " + path + " (" + text.error().message +
                                            "); --run must name a campaign folder that holds evaluations.jsonl.");
  }
  return summarize_corpus_text(*text, path);
}

}  // namespace kf::profiler
