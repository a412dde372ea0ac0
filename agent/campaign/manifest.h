#pragma once
// The run manifest (DIR/run.json): what a folder's campaign was started with, to detect changes on resume; the
// run id and the session count; the imports of `kforge import`; the environment of the last session. The one
// reader and writer of that file. Shards of one campaign share it: every update happens under an exclusive lock
// on DIR/run.lock, so concurrent `kforge run --shard` starts are serialized.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "corpus/record.h"

namespace kf::agent {

// What one configuration of a campaign was started with.
struct ConfigInputs {
  std::string path;    // the configuration file
  std::string sha256;  // of that file
  std::string candidate_format;
  int samples = 1;
  std::string prompts_sha256;  // its prompt templates
  int turns = 1;
  bool stop_at_first_correct = true;
  int keep_last_attempts = 0;
  std::optional<double> stop_at_peak_fraction;
  std::string baseline = "eager";
  // The configuration's loop section when it searches (a strategy other than refine, or search limits); null
  // otherwise. Recorded only when set, like the two above.
  nlohmann::json search;
};

struct ProblemInputs {
  std::string path;
  std::string sha256;
};

// Inputs that make records comparable. Resuming with other inputs is refused unless allowed (begin_session).
struct CampaignInputs {
  std::string backend;
  std::string prompts_sha256;                     // over every configuration's templates
  std::map<std::string, ConfigInputs> configs;    // by name
  std::map<std::string, ProblemInputs> problems;  // by name
};

struct ManifestSession {
  std::string run_id;
  int session = 1;
  std::vector<std::string> changes;  // what differs from the folder's earlier inputs, as sentences
};

// Creates or updates DIR/run.json for one more session with `inputs`. A change of inputs is an error
// (code "manifest.changed", the message lists them) unless `allow_changed`, which logs it in the manifest.
// `shard` ("I/N" or "") is recorded in the session list.
Result<ManifestSession> begin_session(const std::string& dir, const CampaignInputs& inputs, bool allow_changed,
                                      const std::string& shard);

// What `kforge import` was given, as its entry in run.json's "imports".
struct ImportEntry {
  std::vector<std::string> sources;  // absolute paths
  std::string kernelbench;           // the dataset's folder; "" without one
  std::string baseline;              // the baseline timing file's origin; "" without one
  std::string audit;                 // the problem audit's origin; "" without one
  std::optional<int> level;
};

struct ImportSession {
  std::string run_id;
  int number = 1;  // this import's place in run.json's "imports", from 1
};

// For `kforge import`: creates DIR/run.json when missing (a folder of imports: no configurations or
// problems of a campaign) and appends `entry` (with the time) to its imports, under the lock. A folder a
// campaign wrote is refused: imports go to a folder of their own.
Result<ImportSession> record_import(const std::string& dir, const ImportEntry& entry);

// Records the environment of this session and its evaluators (under the lock).
Status record_environment(const std::string& dir, const corpus::Environment& environment,
                          const std::vector<corpus::EvaluatorRef>& evaluators);

// A run folder's manifest read back (`kforge status`).
struct RunManifest {
  std::string run_id;
  std::map<std::string, int> config_samples;  // every configuration any session added -> its samples
  std::vector<std::string> problems;          // every problem any session added
  // Error when DIR holds no readable run.json.
  static Result<RunManifest> read(const std::string& dir);
};

}  // namespace kf::agent
