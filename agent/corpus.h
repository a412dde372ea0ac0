#pragma once
// The corpus: DIR/evaluations.jsonl, one JSON record per line, appended and fsynced per record, with
// raw replies in DIR/replies/ and extracted sources in DIR/sources/. Schema: docs/corpus.md.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent {

inline constexpr int kCorpusSchema = 1;
inline constexpr const char* kCorpusFile = "evaluations.jsonl";

// Record kinds.
inline constexpr const char* kKindEvaluation = "evaluation";            // one evaluated (or unextractable) reply
inline constexpr const char* kKindProviderFailure = "provider_failure";  // the model call failed
inline constexpr const char* kKindHarnessFailure = "harness_failure";    // kforge could not judge the kernel
inline constexpr const char* kKindUnitDone = "unit_done";                // a (problem, config, sample) finished

// Identifies one conversation: (configuration, problem, sample).
struct UnitKey {
  std::string config;
  std::string problem;
  int sample = 0;
  auto tie() const { return std::tie(config, problem, sample); }
  bool operator<(const UnitKey& o) const { return tie() < o.tie(); }
  bool operator==(const UnitKey& o) const { return tie() == o.tie(); }
  std::string file_stem() const;  // safe file name prefix: config__problem__s<sample>
};

UnitKey unit_key_of(const nlohmann::json& record);

// Appends records durably. Thread-safe. Creates DIR, DIR/replies and DIR/sources.
class CorpusWriter {
 public:
  static Result<std::unique_ptr<CorpusWriter>> open(const std::string& dir);
  Status append(const nlohmann::json& record);
  // Writes a companion file (reply or source) atomically; returns its path relative to DIR.
  Result<std::string> write_companion(const std::string& subdir, const std::string& name, const std::string& text);
  const std::string& dir() const { return dir_; }

 private:
  explicit CorpusWriter(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::mutex mu_;
};

struct Corpus {
  std::string dir;
  std::vector<nlohmann::json> records;  // in file order; evaluation records carry a computed "best"
  int skipped_lines = 0;                // unparseable lines (a torn last line after kill -9)
};

// Reads DIR/evaluations.jsonl. Sets "best" on every evaluation record: true for exactly one record
// per (problem, config, sample) that has a correct kernel — the one with the highest speedup (the
// earliest turn on ties; a correct kernel without a timing ranks below any timed one).
Result<Corpus> load_corpus(const std::string& dir);

// Helpers over verdict JSON inside records.
bool record_correct(const nlohmann::json& record);
std::optional<double> record_speedup(const nlohmann::json& record);
std::string record_verdict(const nlohmann::json& record);  // "correct", ..., "no_code"

// ISO-8601 UTC with milliseconds.
std::string utc_now_iso();

}  // namespace kf::agent
