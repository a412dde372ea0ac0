// The timing phase: the candidate's timed rounds (docs/evaluator.md, "Timing"). Each round gets fresh inputs in
// every slot, calls them in a random order between two trusted clocks, and is scanned for poison; random rounds
// are compared in full. The policy (timing_policy.h) decides when the rounds stop; the median is the verdict's
// time.
#include <algorithm>
#include <cmath>
#include <random>

#include "core/time.h"
#include "evaluator/evaluation_context.h"

namespace kf::eval {

Next Evaluator::Impl::time_candidate(EvaluationContext& s) {
  // The bytes of the last trial's inputs and outputs: the bandwidth floor of this timing (phases/baseline.cpp).
  s.timed_trial_bytes = s.trial_bytes;
  const Next timed = timed_rounds(s, candidate_calls_per_round(s, *s.plan));
  s.phase_done("timing");
  // Reasons found beside the trials or the timing (a vendor library, the events' disagreement) stop here too.
  return timed == Next::go_on && s.verdict.reasons.empty() ? Next::go_on : Next::stop;
}

int Evaluator::Impl::candidate_calls_per_round(const EvaluationContext& s, const Plan& plan) const {
  const Verdict& v = s.verdict;
  // A trial is a round of one call: its trusted time less the calibrated round overhead is one call. The
  // fastest trial counts (the first may hold lazy initialisation). A candidate that shapes its trial times
  // only picks a count between the plan's and max_slots: the calibration and every check are the same for all.
  double call_ms = plan.call_ms;
  if (v.checks.trials)
    for (const auto& t : *v.checks.trials)
      if (t.call_ms) call_ms = std::min(call_ms, *t.call_ms - s.round_overhead_ms);
  const double calls = std::ceil(opt.round_target_ms / std::max(call_ms, 1e-4));
  return static_cast<int>(std::clamp<double>(calls, plan.slots, plan.max_slots));
}

Next Evaluator::Impl::timed_rounds(EvaluationContext& s, int k) {
  Verdict& v = s.verdict;
  TimingPolicy policy(policy_options());
  std::vector<int> order(static_cast<size_t>(k));
  std::bernoulli_distribution checked(std::clamp(opt.check_fraction, 0.0, 1.0));
  double events_total = 0, trusted_total = 0;
  std::vector<double> tails;
  int checked_rounds = 0, checked_slots = 0, round_no = 0;
  bool shapes_sent = false;
  nlohmann::json round_log = nlohmann::json::array();
  while (!policy.done()) {
    // Fresh inputs in every slot, outputs poisoned, called in a random order.
    const double prep_start = now_s();
    auto prep = prepare_round(k);
    if (!prep.ok()) {
      judge_oracle_failure(v, prep.error());
      return Next::stop;
    }
    const double prep_ms = (now_s() - prep_start) * 1e3;
    for (int i = 0; i < k; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    nlohmann::json shapes;
    if (s.varying_shapes || !shapes_sent) {
      shapes = nlohmann::json::array();
      for (const auto& sh : (*prep)["shapes"]) shapes.push_back({{"inputs", sh["inputs"]}, {"outputs", sh["outputs"]}});
      shapes_sent = true;
    }
    double raw_ms = 0;
    auto e = round(s, order, shapes, &raw_ms);
    const double ms = std::max(0.0, raw_ms - s.round_overhead_ms);
    const std::string label = "timed round " + std::to_string(round_no);
    if (runner_failed(s, e, label)) return Next::stop;
    check_maps(s);
    if (no_custom_kernel(s, e, label)) return Next::stop;
    // Chosen after the round, by the trusted side alone: the candidate cannot know which rounds count.
    // A checked round compares a random handful of its slots in full; every slot is scanned for poison.
    const bool check = !policy.warming_up() && checked(rng);
    nlohmann::json check_slots = nlohmann::json::array();
    if (check) {
      std::vector<int> pick(order);
      std::shuffle(pick.begin(), pick.end(), rng);
      for (size_t i = 0; i < pick.size() && i < kCheckedSlotsPerRound; ++i) check_slots.push_back(pick[i]);
    }
    const double check_start = now_s();
    auto rc = ask(round_check_request(check_slots));
    if (!rc.ok()) {
      judge_oracle_failure(v, rc.error());
      return Next::stop;
    }
    const double check_ms = (now_s() - check_start) * 1e3;
    int64_t unwritten = 0;
    for (const auto& u : (*rc)["unwritten"]) unwritten += u[1].get<int64_t>();
    if (unwritten > 0) {
      v.reasons.push_back({"rejected.deferred_work",
                           std::to_string(unwritten) + " output elements still held the poison when " + label +
                               " was reported complete: the work was skipped or deferred past the round"});
      return Next::stop;
    }
    std::vector<Reason> reasons;
    for (const auto& c : (*rc)["checks"]) {
      TrialRecord rec;
      std::string where = label + " (slot " + std::to_string(c.value("slot", 0)) + ", checked at random";
      if (auto n = c.find("sampled"); n != c.end() && n->is_number())
        where += " at " + std::to_string(n->get<int64_t>()) + " random positions per output";
      auto r = judge_comparison(s, c, -1, where + ")", &rec);
      if (!r.empty()) v.checks.trial_records().push_back(std::move(rec));
      reasons.insert(reasons.end(), r.begin(), r.end());
      ++checked_slots;
    }
    if (check) ++checked_rounds;
    if (!reasons.empty()) {
      v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
      return Next::stop;
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
    if (round_log.size() < 400) round_log.push_back({raw_ms, events, check, prep_ms, check_ms});
    policy.add(ms, k);
    ++round_no;
  }
  CandidateRounds t;
  t.summary = policy.summary();
  t.calls_per_round = k;
  t.checked_rounds = checked_rounds;
  t.checked_slots = checked_slots;
  t.rounds_log = round_log;
  t.round_overhead_ms = s.round_overhead_ms;
  t.calibration_log = s.calibration_log;
  // The channel's own round trip (empty rounds), to show what a round's time holds besides the calls.
  std::optional<double> rtt;
  for (int i = 0; i < 3; ++i) {
    double ms = 0;
    auto e = round(s, nlohmann::json::array(), nullptr, &ms);
    if (runner_failed(s, e, "an empty round")) return Next::stop;
    rtt = rtt ? std::min(*rtt, ms) : ms;
  }
  t.channel_rtt_ms = rtt;
  // The part of a median round that was the harness's rather than the candidate's (taken off the samples).
  t.channel_share = s.round_overhead_ms / std::max(1e-9, policy.median_ms() * k + s.round_overhead_ms);
  if (opt.backend == Backend::cuda && trusted_total > 0) {
    const double calls = static_cast<double>(policy.calls());
    t.events_per_call_ms = events_total / calls;
    if (auto r = judge_event_disagreement(trusted_total / calls, events_total / calls)) v.reasons.push_back(*r);
  }
  if (!tails.empty()) {
    std::nth_element(tails.begin(), tails.begin() + static_cast<long>(tails.size() / 2), tails.end());
    const double median_tail = tails[tails.size() / 2];
    t.device_tail_ms = median_tail;
    if (auto r = judge_device_tail(median_tail, policy.median_ms() * k)) v.reasons.push_back(*r);
  }
  v.checks.timing_record().candidate = std::move(t);
  v.time_ms = policy.median_ms();
  return Next::go_on;
}

}  // namespace kf::eval
