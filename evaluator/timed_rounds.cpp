// The timing of an evaluation: the plan (calls per round, slots), the baseline's timing, one round of
// runner calls between two trusted clocks, and the rounds until the policy stops them.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/child_process.h"
#include "core/data_dir.h"
#include "core/files.h"
#include "core/log.h"
#include "core/time.h"
#include "evaluator/evaluator_impl.h"
#include "evaluator/text_hygiene.h"
#include "sandbox/seccomp.h"

namespace fs = std::filesystem;

namespace kf::eval {

RunnerEnd Evaluator::Impl::round(Session& s, const nlohmann::json& order, const nlohmann::json& shapes, double* ms,
                                  int64_t touch_bytes) {
  nlohmann::json cmd{{"op", "round"}, {"order", order}};
  if (!shapes.is_null()) cmd["shapes"] = shapes;
  if (touch_bytes > 0) cmd["touch_bytes"] = touch_bytes;
  double limit = s.call_limit_s * std::max<double>(1.0, static_cast<double>(order.size()));
  std::string usual_text;
  if (s.first_round_limit_s > limit) {
    limit = s.first_round_limit_s;
    usual_text = s.call_limit_text;
    s.call_limit_text = "the first call's limit of " + std::to_string(static_cast<int>(limit)) +
                        " s (it may include Triton's JIT and lazy CUDA initialisation)";
  }
  s.first_round_limit_s = 0;
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

bool Evaluator::Impl::calibrate_rounds(Verdict& v, Session& s) {
  constexpr int kWarmup = 1, kRounds = 7;
  // GPU work in the round makes the harness pay what it pays around a candidate's work: the switch from the
  // oracle's context, the launch, the wait and the wake-up after it (an empty round missed ~0.15 ms of that per
  // round on the H200). A memset of all of slot 0's first output waits about as long as a call that writes it
  // (2 ms for level 1's 6.4 GB activations), and its own device time is taken off.
  constexpr int64_t kTouchBytes = int64_t{1} << 40;  // the runner caps it at the output's size
  if (!s.runner.freeze()) s.freeze_failed = true;
  std::vector<double> samples;
  for (int i = 0; i < kWarmup + kRounds; ++i) {
    if (auto f = ask({{"op", "flush"}}); !f.ok()) return !oracle_failed(v, f.error());
    double ms = 0;
    auto e = round(s, nlohmann::json::array(), nullptr, &ms, kTouchBytes);
    if (runner_failed(v, s, e, "measuring the round overhead")) return false;
    // No candidate code exists in the runner yet, so its event time of the memset may be believed.
    auto ev = e.reply.find("events_ms");
    const double work = ev != e.reply.end() && ev->is_number() ? std::clamp(ev->get<double>(), 0.0, ms) : 0.0;
    if (i >= kWarmup) samples.push_back(ms - work);
  }
  // The smallest: what is taken off a candidate's round is never more than the harness was seen to cost.
  s.round_overhead_ms = *std::min_element(samples.begin(), samples.end());
  return true;
}

Result<Evaluator::Impl::Plan> Evaluator::Impl::plan() {
  if (auto it = plans.find(problem_key); it != plans.end()) return it->second;
  auto r = ask({{"op", "plan"}});
  if (!r.ok()) return r.error();
  Plan p;
  p.call_ms = std::max(1e-3, r->value("call_ms", 1.0));
  p.slot_bytes = std::max<int64_t>(1, r->value("slot_bytes", int64_t{1}));
  // Enough calls per round that the channel's round trip is a small part of it, as many slots as memory
  // allows (candidate slots, their pristine copies and the baseline's input sets: three per slot).
  const int64_t memory = r->value("slot_memory", int64_t{256} << 20);
  const int by_time = static_cast<int>(std::ceil(opt.round_target_ms / p.call_ms));
  const int64_t by_memory = std::max<int64_t>(1, memory / (3 * p.slot_bytes));
  p.slots = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(by_time, by_memory), 1, kMaxSlots));
  plans[problem_key] = p;
  return p;
}

Result<nlohmann::json> Evaluator::Impl::baseline(const Plan& p, bool copies_outputs) {
  const std::string key = problem_key + (opt.baseline_cudnn_tf32 ? "|tf32" : "") + (copies_outputs ? "|copies" : "");
  if (auto it = baselines.find(key); it != baselines.end()) return it->second;
  TimingPolicy policy(policy_options());
  while (!policy.done()) {
    auto r = ask({{"op", "baseline_round"}, {"slots", p.slots}, {"cudnn_tf32", opt.baseline_cudnn_tf32},
                  {"copy_outputs", copies_outputs}});
    if (!r.ok()) return r.error();
    policy.add(r->value("ms", 0.0), r->value("calls", p.slots));
  }
  nlohmann::json b = policy.summary();
  b["cudnn_tf32"] = opt.baseline_cudnn_tf32;
  b["copies_outputs"] = copies_outputs;
  b["calls_per_round"] = p.slots;
  baselines[key] = b;
  return b;
}

bool Evaluator::Impl::timed_rounds(Verdict& v, Session& s, const Plan& plan) {
  TimingPolicy policy(policy_options());
  const int k = plan.slots;
  std::vector<int> order(static_cast<size_t>(k));
  std::bernoulli_distribution checked(std::clamp(opt.check_fraction, 0.0, 1.0));
  double events_total = 0, trusted_total = 0;
  std::vector<double> tails;
  int checked_rounds = 0, checked_slots = 0, round_no = 0;
  bool shapes_sent = false;
  nlohmann::json round_log = nlohmann::json::array();
  while (!policy.done()) {
    // Fresh inputs on unpredictable seeds in every slot, outputs poisoned, called in a random order.
    nlohmann::json slots = nlohmann::json::array(), seeds = nlohmann::json::array();
    for (int i = 0; i < k; ++i) {
      slots.push_back(i);
      seeds.push_back(rng() >> 12);
      order[static_cast<size_t>(i)] = i;
    }
    std::shuffle(order.begin(), order.end(), rng);
    auto prep = ask({{"op", "prepare_round"}, {"slots", slots}, {"seeds", seeds}});
    if (!prep.ok()) return !oracle_failed(v, prep.error());
    nlohmann::json shapes;
    if (varying_shapes || !shapes_sent) {
      shapes = nlohmann::json::array();
      for (const auto& sh : (*prep)["shapes"]) shapes.push_back({{"inputs", sh["inputs"]}, {"outputs", sh["outputs"]}});
      shapes_sent = true;
    }
    double raw_ms = 0;
    auto e = round(s, order, shapes, &raw_ms);
    const double ms = std::max(0.0, raw_ms - s.round_overhead_ms);
    const std::string label = "timed round " + std::to_string(round_no);
    if (runner_failed(v, s, e, label)) return false;
    check_maps(v, s);
    if (no_custom_kernel(v, s, e, label)) return false;
    // Chosen after the round, by the trusted side alone: the candidate cannot know which rounds count.
    // A checked round compares a random handful of its slots in full; every slot is scanned for poison.
    const bool check = !policy.warming_up() && checked(rng);
    nlohmann::json check_slots = nlohmann::json::array();
    if (check) {
      std::vector<int> pick(order);
      std::shuffle(pick.begin(), pick.end(), rng);
      for (size_t i = 0; i < pick.size() && i < kCheckedSlotsPerRound; ++i) check_slots.push_back(pick[i]);
    }
    auto rc = ask({{"op", "round_check"}, {"check_slots", check_slots}, {"tolerances", tolerances_json()}});
    if (!rc.ok()) return !oracle_failed(v, rc.error());
    int64_t unwritten = 0;
    for (const auto& u : (*rc)["unwritten"]) unwritten += u[1].get<int64_t>();
    if (unwritten > 0) {
      v.reasons.push_back({"rejected.deferred_work",
                           std::to_string(unwritten) + " output elements still held the poison when " + label +
                               " was reported complete: the work was skipped or deferred past the round"});
      return false;
    }
    std::vector<Reason> reasons;
    for (const auto& c : (*rc)["checks"]) {
      nlohmann::json rec;
      auto r = judge_comparison(v, c, -1, label + " (slot " + std::to_string(c.value("slot", 0)) + ", checked at random)",
                                &rec);
      if (!r.empty()) v.checks["trials"].push_back(rec);
      reasons.insert(reasons.end(), r.begin(), r.end());
      ++checked_slots;
    }
    if (check) ++checked_rounds;
    if (!reasons.empty()) {
      v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
      return false;
    }
    auto ev = e.reply.find("events_ms");
    const double events = ev != e.reply.end() && ev->is_number() ? ev->get<double>() : 0.0;
    auto tl = e.reply.find("device_tail_ms");
    const double tail = tl != e.reply.end() && tl->is_number() ? tl->get<double>() : 0.0;
    if (!policy.warming_up()) {
      events_total += events;
      trusted_total += ms;
      tails.push_back(tail);
    }
    if (round_log.size() < 400) round_log.push_back({raw_ms, events, check});
    policy.add(ms, k);
    ++round_no;
  }
  nlohmann::json t = policy.summary();
  t["calls_per_round"] = k;
  t["checked_rounds"] = checked_rounds;
  t["checked_slots"] = checked_slots;
  t["rounds_log"] = round_log;  // [trusted ms before the overhead is taken off, runner events ms, checked]
  t["round_overhead_ms"] = s.round_overhead_ms;
  // The channel's own round trip (empty rounds), to show what a round's time holds besides the calls.
  double rtt = 1e9;
  for (int i = 0; i < 3; ++i) {
    double ms = 0;
    auto e = round(s, nlohmann::json::array(), nullptr, &ms);
    if (runner_failed(v, s, e, "an empty round")) return false;
    rtt = std::min(rtt, ms);
  }
  t["channel_rtt_ms"] = rtt;
  // The part of a median round that was the harness's rather than the candidate's (taken off the samples).
  t["channel_share"] = s.round_overhead_ms / std::max(1e-9, policy.median_ms() * k + s.round_overhead_ms);
  if (opt.backend == Backend::cuda && trusted_total > 0) {
    const double calls = static_cast<double>(policy.calls());
    t["events_per_call_ms"] = events_total / calls;
    if (auto r = judge_event_disagreement(trusted_total / calls, events_total / calls)) v.reasons.push_back(*r);
  }
  if (!tails.empty()) {
    std::nth_element(tails.begin(), tails.begin() + static_cast<long>(tails.size() / 2), tails.end());
    const double median_tail = tails[tails.size() / 2];
    t["device_tail_ms"] = median_tail;
    if (auto r = judge_device_tail(median_tail, policy.median_ms() * k)) v.reasons.push_back(*r);
  }
  v.checks["timing"]["candidate"] = t;
  v.time_ms = policy.median_ms();
  return true;
}

}  // namespace kf::eval
