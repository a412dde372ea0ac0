#pragma once
// What the projection needs from a campaign corpus (read by corpus/reader.h, shards included): per configuration and
// problem, the baseline time and the best correct kernel's speedup.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::profiler {

struct ProblemOutcome {
  std::string name;
  std::string category;
  std::optional<double> ref_time_ms;   // median of the baseline times recorded for it; none: not weighable
  std::optional<double> best_speedup;  // highest speedup among its correct "best" kernels (best of samples)
};

struct CorpusSummary {
  // config -> problem name -> outcome
  std::map<std::string, std::map<std::string, ProblemOutcome>> configs;
  size_t evaluations = 0;
};

Result<CorpusSummary> summarize_corpus_text(const std::string& jsonl, const std::string& origin);
// Reads the corpus of run folder DIR (every corpus file).
Result<CorpusSummary> read_corpus(const std::string& dir);

}  // namespace kf::profiler
