#include "profiler/corpus.h"

#include <algorithm>

#include "corpus/reader.h"

namespace kf::profiler {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Result<CorpusSummary> summarize(corpus::Corpus& c) {
  if (!c.damaged.empty())
    return make_error("corpus.invalid",
                      c.damaged.front().where() + ": " + c.damaged.front().reason + "; the corpus is damaged.");
  corpus::mark_best(c.records);
  CorpusSummary out;
  std::map<std::string, std::map<std::string, std::vector<double>>> ref_times;
  for (const auto& r : c.records) {
    // Only evaluation records carry kernels; provider failures and unit markers are skipped.
    if (r.kind != corpus::Kind::evaluation) continue;
    auto& outcome = out.configs[r.config][r.problem.name];
    outcome.name = r.problem.name;
    if (outcome.category.empty()) outcome.category = r.problem.category;
    ++out.evaluations;
    if (auto ref = r.ref_time_ms(); ref && *ref > 0) ref_times[r.config][r.problem.name].push_back(*ref);
    // Best of samples: the highest speedup among the units' best correct kernels.
    if (auto s = r.speedup(); r.best && s && *s > 0 && (!outcome.best_speedup || *s > *outcome.best_speedup))
      outcome.best_speedup = *s;
  }
  for (auto& [config, problems] : out.configs) {
    for (auto& [name, outcome] : problems) {
      auto it = ref_times[config].find(name);
      if (it != ref_times[config].end() && !it->second.empty()) outcome.ref_time_ms = median(it->second);
    }
  }
  return out;
}

}  // namespace

Result<CorpusSummary> summarize_corpus_text(const std::string& jsonl, const std::string& origin) {
  corpus::Corpus c;
  corpus::parse_text(jsonl, origin, c);
  return summarize(c);
}

Result<CorpusSummary> read_corpus(const std::string& dir) {
  auto c = corpus::load(dir);
  if (!c) return make_error(c.error().code, c.error().message + "; --run must name a campaign folder.");
  return summarize(*c);
}

}  // namespace kf::profiler
