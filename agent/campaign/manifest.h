#pragma once
// The run manifest (DIR/run.json): what a folder's campaign was started with, to detect changes on
// resume; the run id and the session count. Shards of one campaign share it: every update happens under
// an exclusive lock on DIR/run.lock, so concurrent `kforge run --shard` starts are serialized.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent {

// Inputs that make records comparable: {"backend", "prompts_sha256", "configs": {...}, "problems": {...}}.
// Differences between two of them, as sentences (empty: none).
std::vector<std::string> manifest_changes(const nlohmann::json& old_inputs, const nlohmann::json& new_inputs);

struct ManifestSession {
  nlohmann::json manifest;  // as written
  std::string run_id;
  int session = 1;
  std::vector<std::string> changes;  // what differs from the folder's earlier inputs
};

// Creates or updates DIR/run.json for one more session with `inputs`. A change of inputs is an error
// (code "manifest.changed", the message lists them) unless `allow_changed`, which logs it in the manifest.
// `shard` ("I/N" or "") is recorded in the session list.
Result<ManifestSession> begin_session(const std::string& dir, const nlohmann::json& inputs, bool allow_changed,
                                      const std::string& shard);

struct ImportSession {
  std::string run_id;
  int number = 1;  // this import's place in run.json's "imports", from 1
};

// For `kforge import`: creates DIR/run.json when missing (a folder of imports: no configurations or
// problems of a campaign) and appends `entry` to its "imports" list, under the lock. A folder a campaign
// wrote is refused: imports go to a folder of their own.
Result<ImportSession> record_import(const std::string& dir, const nlohmann::json& entry);

// Sets environment_last (under the lock).
Status record_environment(const std::string& dir, const nlohmann::json& environment);

}  // namespace kf::agent
