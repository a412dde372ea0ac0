#pragma once
// `kforge status DIR`: per-shard and total progress of a run folder (units done of the units the manifest
// defines, correct, evaluations, failures, spend, last record), and any unit recorded twice.
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace kf::agent {

// {"run_id", "shards": [{"file", "shard", "units", "units_done", "units_correct", "evaluations",
//  "provider_failures", "harness_failures", "imported", "imported_claimed_correct", "cost_usd", "tokens",
//  "last_record_at"}], "total": {...},
//  "duplicates": [...], "unreadable_lines": N, "unreadable_first": [{"file", "line", "reason"}, ...] (the first
//  few), "torn_tails": N} — "units" is null for a file whose share of the manifest cannot be told. Streams the
//  corpus: memory grows with units, not records.
Result<nlohmann::json> run_status(const std::string& dir);
std::string format_status(const nlohmann::json& status);

}  // namespace kf::agent
