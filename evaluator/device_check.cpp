#include "evaluator/device_check.h"

namespace kf::eval {

DeviceState device_state(const nlohmann::json& oracle_answer, bool runner_tree_empty) {
  DeviceState s;
  s.record = oracle_answer.is_object() ? oracle_answer : nlohmann::json::object();
  s.record.erase("ok");
  s.record["runner_tree_empty"] = runner_tree_empty;
  auto c = s.record.find("clean");
  const std::optional<bool> device =
      c != s.record.end() && c->is_boolean() ? std::optional<bool>(c->get<bool>()) : std::nullopt;
  // A surviving process of the runner is dirt whatever the device says; otherwise the device decides.
  if (!runner_tree_empty)
    s.clean = false;
  else
    s.clean = device.value_or(true);
  if (!device && runner_tree_empty && s.record.value("checked", "") != "host") s.record["device_unverified"] = true;
  s.record["clean"] = *s.clean;
  return s;
}

Result<TimingSummary> time_on_clean_device(const std::function<Result<DeviceState>()>& check,
                                           const std::function<Result<TimingSummary>()>& time, int attempts,
                                           nlohmann::json* log) {
  std::string why = "no attempt made";
  for (int i = 0; i < attempts; ++i) {
    auto before = check();
    if (!before.ok()) return before.error();
    nlohmann::json entry{{"before", before->record}};
    if (before->clean == false) {
      why = "the device was not clean before the baseline: " + before->record.dump();
      if (log) log->push_back(entry);
      continue;
    }
    auto timed = time();
    if (!timed.ok()) return timed.error();
    auto after = check();
    if (!after.ok()) return after.error();
    entry["after"] = after->record;
    if (log) log->push_back(entry);
    if (after->clean == false) {
      why = "the device was not clean after the baseline: " + after->record.dump();
      continue;
    }
    return timed;
  }
  return make_error("device.not_clean", "baseline not used (" + std::to_string(attempts) + " attempts): " + why);
}

}  // namespace kf::eval
