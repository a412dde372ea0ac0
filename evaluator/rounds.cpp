// The rounds every phase runs and the timing facts that outlive an evaluation: one round of runner calls
// between two trusted clocks, the oracle's preparation and check around a timed round, the calibration of the
// harness's own cost of a round (during setup), the timing plan of a problem (cached), the device check, and
// the baseline's timing (cached). The candidate's timed rounds are the timing phase (phases/timing.cpp).
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "core/time.h"
#include "evaluator/evaluation_context.h"

namespace kf::eval {

RunnerEnd Evaluator::Impl::round(EvaluationContext& s, const nlohmann::json& order, const nlohmann::json& shapes,
                                 double* ms, int64_t touch_bytes) {
  nlohmann::json cmd{{"op", "round"}, {"order", order}};
  if (!shapes.is_null()) cmd["shapes"] = shapes;
  if (touch_bytes > 0) cmd["touch_bytes"] = touch_bytes;
  if (s.record_bytes > 0) cmd["record"] = s.record_bytes;
  double limit = s.call_limit_s * std::max<double>(1.0, static_cast<double>(order.size()));
  std::string usual_text;
  if (s.first_round_limit_s > limit) {
    limit = s.first_round_limit_s;
    usual_text = s.call_limit_text;
    s.call_limit_text = "the first call's limit of " + std::to_string(static_cast<int>(limit)) +
                        " s (it may include Triton's JIT and lazy CUDA initialisation)";
  }
  s.first_round_limit_s = 0;
  // Nothing a kernelbench solution started (Triton's compiler workers) lives into a round: the runner's device
  // synchronisation does not cover another process's work.
  if (s.kernelbench) s.helpers_ended += s.runner.end_helpers();
  // Thawed before the clock starts (the thaw's own latency is not the candidate's), frozen after it stops:
  // no thread of the candidate runs while the trusted side prepares or checks.
  s.runner.thaw();
  const double t0 = now_s();
  RunnerEnd e = s.runner.exchange(cmd, t0 + limit);
  const double t1 = now_s();
  if (ms) *ms = (t1 - t0) * 1e3;
  if (!usual_text.empty() && e.kind != RunnerEnd::Kind::timeout) s.call_limit_text = usual_text;
  if (e.kind == RunnerEnd::Kind::reply && !s.runner.freeze()) s.freeze_failed = true;
  return e;
}

Result<nlohmann::json> Evaluator::Impl::prepare_round(int slots) {
  nlohmann::json list = nlohmann::json::array(), seeds = nlohmann::json::array();
  for (int i = 0; i < slots; ++i) {
    list.push_back(i);
    seeds.push_back(rng() >> 12);
  }
  return ask({{"op", "prepare_round"}, {"slots", list}, {"seeds", seeds}});
}

nlohmann::json Evaluator::Impl::round_check_request(const nlohmann::json& check_slots) {
  return {{"op", "round_check"},
          {"check_slots", check_slots},
          {"tolerances", tolerances_json()},
          {"sample", std::max<int64_t>(1, opt.round_check_sample)}};
}

Next Evaluator::Impl::calibrate_rounds(EvaluationContext& s, const Plan& plan) {
  Verdict& v = s.verdict;
  constexpr int kWarmup = 2, kMinRounds = 15, kMaxRounds = 45;
  // The harness's cost of a round depends on what surrounds it: on the H200 it grew with the GPU work in the
  // round (0.19 ms beside an empty memset, 0.25-0.35 ms beside 1.4-3 ms of work) and with how long the runner
  // had been frozen before it (calibration rounds after a bare L2 flush came out ~0.075 ms cheaper than timed
  // rounds after a full preparation). So each calibration round is a timed round with the runner's own work in
  // place of the calls: the oracle's prepare_round before it, the poison scan after it, and memsets that last
  // about as long as a round of reference calls (at most 20 ms) over the same buffers, sized from the rate of
  // the round before; their own device time is taken off.
  constexpr double kMaxWorkMs = 20;
  const double work_ms = std::min(kMaxWorkMs, plan.call_ms * plan.slots);
  // How far the lower quartile may sit above the smallest sample before more rounds are taken: 0.3% of a
  // round's work (a tenth of the timing's 3% bound), at least 0.01 ms.
  const double settled_ms = std::max(0.01, 0.003 * work_ms);
  int64_t touch = std::max<int64_t>(1, plan.slot_bytes * plan.slots);
  if (!s.runner.freeze()) s.freeze_failed = true;
  std::vector<double> samples;
  nlohmann::json log = nlohmann::json::array();
  auto lower_quartile = [&samples] {
    std::vector<double> sorted = samples;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 4), sorted.end());
    return sorted[sorted.size() / 4];
  };
  for (int i = 0;; ++i) {
    if (auto prep = prepare_round(plan.slots); !prep.ok()) {
      judge_oracle_failure(v, prep.error());
      return Next::stop;
    }
    double ms = 0;
    auto e = round(s, nlohmann::json::array(), nullptr, &ms, touch);
    if (runner_failed(s, e, "measuring the round overhead")) return Next::stop;
    // The memsets overwrote outputs: the scan's count means nothing here, only its cost does.
    if (auto scan = ask(round_check_request(nlohmann::json::array())); !scan.ok()) {
      judge_oracle_failure(v, scan.error());
      return Next::stop;
    }
    // No candidate code exists in the runner yet, so its event time of the memsets may be believed.
    auto ev = e.reply.find("events_ms");
    const double work = ev != e.reply.end() && ev->is_number() ? std::clamp(ev->get<double>(), 0.0, ms) : 0.0;
    auto tb = e.reply.find("touched_bytes");
    const double touched = tb != e.reply.end() && tb->is_number() ? std::max(0.0, tb->get<double>()) : 0.0;
    log.push_back({ms, work, touched});
    if (i >= kWarmup) samples.push_back(ms - work);
    if (work > 0 && touched > 0)
      touch = static_cast<int64_t>(std::clamp(touched / work * work_ms, 1.0, static_cast<double>(int64_t{1} << 40)));
    const int n = static_cast<int>(samples.size());
    if (n >= kMaxRounds) break;
    if (n >= kMinRounds && lower_quartile() - *std::min_element(samples.begin(), samples.end()) <= settled_ms) break;
  }
  // The lower quartile. Measured before any candidate code exists, so the candidate can neither enlarge it nor
  // choose among its samples. On the H200 the samples had two modes: most rounds cost what timed rounds cost
  // beyond their calls (~0.28 ms for ReLU), and runs of disturbed ones 0.1-0.3 ms more that timed rounds rarely
  // showed; in two of five evaluations they were over half, so the median took off 0.1 ms too much (3% of
  // ReLU's median). The smallest sample takes off too little (+4.6%); the lower quartile sat within 0.01 ms
  // of the typical rounds in all five, and errs, if at all, against the candidate. In one evaluation of
  // fifteen every sample was disturbed (0.30-2.3 ms against 0.285 ms in its timed rounds): a lower quartile
  // far above the smallest sample marks such a stretch, and the calibration goes on until it has passed.
  s.round_overhead_ms = lower_quartile();
  s.calibration_log = std::move(log);
  return Next::go_on;
}

Result<Evaluator::Impl::Plan> Evaluator::Impl::plan(const std::string& key) {
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  auto r = ask({{"op", "plan"}});
  if (!r.ok()) return r.error();
  Plan p;
  p.call_ms = std::max(1e-3, r->value("call_ms", 1.0));
  p.slot_bytes = std::max<int64_t>(1, r->value("slot_bytes", int64_t{1}));
  // Enough calls per round that the channel's round trip is a small part of it, as many slots as memory
  // allows. A slot is one call's inputs and outputs; the baseline runs in the same buffers. The oracle keeps
  // a copy of each slot's inputs only for a problem whose inputs cannot be drawn again from their seed.
  const int64_t memory = r->value("slot_memory", int64_t{256} << 20);
  p.repeatable_inputs = r->value("repeatable_inputs", false);
  p.inputs_repeated = r->value("inputs_repeated", false);
  if (auto it = r->find("repeated_inputs"); it != r->end() && it->is_array()) p.repeated_inputs = *it;
  const int64_t per_slot = p.repeatable_inputs ? p.slot_bytes : 2 * p.slot_bytes;
  const double by_time = std::ceil(opt.round_target_ms / p.call_ms);
  const int64_t by_memory = std::max<int64_t>(1, memory / per_slot);
  auto fit = [&](double calls) {
    const int64_t wanted = static_cast<int64_t>(std::min(calls, 1e6));
    return static_cast<int>(std::clamp<int64_t>(std::min(wanted, by_memory), 1, kMaxSlots));
  };
  p.slots = fit(by_time);
  p.max_slots = std::max(p.slots, fit(std::ceil(opt.round_target_ms * kFastCandidateFactor / p.call_ms)));
  plans[key] = p;
  return p;
}

Result<DeviceState> Evaluator::Impl::check_device() {
  auto r = ask({{"op", "device_check"}, {"pids", runner_pids}, {"wait_s", 5.0}});
  if (!r.ok()) return r.error();
  // The sandbox verified the tree empty after the kill; where it did not, the recorded processes are looked
  // up again now (one may have ended since).
  bool gone = runner_tree_empty;
  if (!gone) {
    gone = true;
    for (int pid : runner_pids)
      if (pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM)) gone = false;
    if (gone) runner_tree_empty = true;
  }
  return device_state(*r, gone);
}

Result<BaselineRounds> Evaluator::Impl::baseline(const std::string& problem_key, const Plan& p, bool copies_outputs,
                                                 const std::string& which) {
  const std::string mode = which == "eager" ? "" : "|" + which + ":" + opt.compile_mode;
  const std::string key =
      problem_key + (opt.baseline_cudnn_tf32 ? "|tf32" : "") + (copies_outputs ? "|copies" : "") + mode;
  if (auto it = baselines.find(key); it != baselines.end()) return it->second;
  auto time = [&]() -> Result<TimingSummary> {
    TimingPolicy policy(policy_options());
    while (!policy.done()) {
      auto r = ask({{"op", "baseline_round"},
                    {"slots", p.slots},
                    {"cudnn_tf32", opt.baseline_cudnn_tf32},
                    {"copy_outputs", copies_outputs},
                    {"baseline", which},
                    {"mode", opt.compile_mode}});
      if (!r.ok()) return r.error();
      policy.add(r->value("ms", 0.0), r->value("calls", p.slots));
    }
    return policy.summary();
  };
  nlohmann::json device_checks = nlohmann::json::array();
  auto timed = time_on_clean_device([this] { return check_device(); }, time, 3, &device_checks);
  if (!timed.ok()) return timed.error();
  BaselineRounds b;
  b.summary = *timed;
  b.cudnn_tf32 = opt.baseline_cudnn_tf32;
  b.copies_outputs = copies_outputs;
  b.calls_per_round = p.slots;
  b.device_checks = device_checks;
  baselines[key] = b;
  return b;
}

}  // namespace kf::eval
