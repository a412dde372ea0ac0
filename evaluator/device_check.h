#pragma once
// A clean device before the baseline and before the next candidate (docs/evaluator.md, "A clean device"): the
// finished runner's processes are gone (the sandbox's process-tree check), and on a GPU none of them holds a
// context or memory any more (NVML per-process accounting, asked of the oracle, which also resets the
// persisting-L2 configuration). A baseline timed while the device was not clean is timed again, never used.
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "core/result.h"
#include "verdict/checks.h"

namespace kf::eval {

// One check's outcome: clean (true), not clean (false), or nothing could tell (nullopt: the host backend's
// device side, a machine without NVML); `record` is what the verdict shows.
struct DeviceState {
  std::optional<bool> clean;
  nlohmann::json record = nlohmann::json::object();
};
// The oracle's device_check answer combined with the host's process check of the finished runner.
DeviceState device_state(const nlohmann::json& oracle_answer, bool runner_tree_empty);

// Runs `time` (one complete baseline timing) between two device checks; a timing with a check on either side
// that says not clean is discarded and timed again, at most `attempts` times in all. An error when no timing
// was taken on a clean device. `log` (optional) receives one entry per attempt.
Result<TimingSummary> time_on_clean_device(const std::function<Result<DeviceState>()>& check,
                                           const std::function<Result<TimingSummary>()>& time, int attempts,
                                           nlohmann::json* log = nullptr);

}  // namespace kf::eval
