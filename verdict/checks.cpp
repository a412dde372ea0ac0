// The checks' JSON both ways (docs/evaluator.md, "JSON"). nlohmann's objects keep their keys sorted, so the order
// in which fields are written here does not show in the text.
#include "verdict/checks.h"

namespace kf::eval {

namespace {

using nlohmann::json;

// Reads an object's fields by type; what it does not take (unknown keys, known keys of another type) is left
// for unknown_fields, so that a recorded object is written back as it was.
class FieldReader {
 public:
  explicit FieldReader(const json& j) : rest_(j.is_object() ? j : json::object()) {}

  std::optional<double> number(const char* key) {
    return take<double>(key, [](const json& v) { return v.is_number(); });
  }
  std::optional<int> integer(const char* key) {
    return take<int>(key, [](const json& v) {
      return v.is_number_integer() && v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX;
    });
  }
  std::optional<int64_t> integer64(const char* key) {
    return take<int64_t>(key, [](const json& v) { return v.is_number_integer(); });
  }
  std::optional<uint64_t> unsigned64(const char* key) {
    return take<uint64_t>(key, [](const json& v) { return v.is_number_unsigned(); });
  }
  std::optional<bool> boolean(const char* key) {
    return take<bool>(key, [](const json& v) { return v.is_boolean(); });
  }
  std::optional<std::string> string(const char* key) {
    return take<std::string>(key, [](const json& v) { return v.is_string(); });
  }
  std::optional<std::vector<std::string>> strings(const char* key) {
    return take<std::vector<std::string>>(key, [](const json& v) {
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_string()) return false;
      return true;
    });
  }
  std::optional<json> any(const char* key) {
    return take<json>(key, [](const json&) { return true; });
  }
  std::optional<json> object(const char* key) {
    return take<json>(key, [](const json& v) { return v.is_object(); });
  }
  std::optional<json> array(const char* key) {
    return take<json>(key, [](const json& v) { return v.is_array(); });
  }
  template <class T, class Parse>
  std::optional<T> parsed(const char* key, Parse parse) {
    auto o = object(key);
    if (!o) return std::nullopt;
    return parse(*o);
  }
  // Takes `key` whatever it holds, for a caller that decides itself.
  json& rest() { return rest_; }

 private:
  template <class T, class Fits>
  std::optional<T> take(const char* key, Fits fits) {
    auto it = rest_.find(key);
    if (it == rest_.end() || !fits(*it)) return std::nullopt;
    T value = it->template get<T>();
    rest_.erase(it);
    return value;
  }
  json rest_;
};

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

void put_summary(json& j, const TimingSummary& s) {
  put(j, "median_ms", s.median_ms);
  put(j, "p10_ms", s.p10_ms);
  put(j, "p90_ms", s.p90_ms);
  put(j, "min_ms", s.min_ms);
  put(j, "max_ms", s.max_ms);
  put(j, "rounds", s.rounds);
  put(j, "calls", s.calls);
  put(j, "measured_ms", s.measured_ms);
  put(j, "noise", s.noise);
  put(j, "stop", s.stop);
}

TimingSummary read_summary(FieldReader& r) {
  TimingSummary s;
  s.median_ms = r.number("median_ms");
  s.p10_ms = r.number("p10_ms");
  s.p90_ms = r.number("p90_ms");
  s.min_ms = r.number("min_ms");
  s.max_ms = r.number("max_ms");
  s.rounds = r.integer("rounds");
  s.calls = r.integer("calls");
  s.measured_ms = r.number("measured_ms");
  s.noise = r.number("noise");
  s.stop = r.string("stop");
  return s;
}

json candidate_json(const CandidateRounds& c) {
  json j = c.unknown_fields.is_object() ? c.unknown_fields : json::object();
  put_summary(j, c.summary);
  put(j, "calls_per_round", c.calls_per_round);
  put(j, "checked_rounds", c.checked_rounds);
  put(j, "checked_slots", c.checked_slots);
  put(j, "rounds_log", c.rounds_log);
  put(j, "calibration_log", c.calibration_log);
  put(j, "round_overhead_ms", c.round_overhead_ms);
  put(j, "channel_rtt_ms", c.channel_rtt_ms);
  put(j, "channel_share", c.channel_share);
  put(j, "events_per_call_ms", c.events_per_call_ms);
  put(j, "device_tail_ms", c.device_tail_ms);
  return j;
}

CandidateRounds read_candidate(const json& j) {
  FieldReader r(j);
  CandidateRounds c;
  c.summary = read_summary(r);
  c.calls_per_round = r.integer("calls_per_round");
  c.checked_rounds = r.integer("checked_rounds");
  c.checked_slots = r.integer("checked_slots");
  c.rounds_log = r.any("rounds_log");
  c.calibration_log = r.any("calibration_log");
  c.round_overhead_ms = r.number("round_overhead_ms");
  c.channel_rtt_ms = r.number("channel_rtt_ms");
  c.channel_share = r.number("channel_share");
  c.events_per_call_ms = r.number("events_per_call_ms");
  c.device_tail_ms = r.number("device_tail_ms");
  c.unknown_fields = r.rest();
  return c;
}

json baseline_json(const BaselineRounds& b) {
  json j = b.unknown_fields.is_object() ? b.unknown_fields : json::object();
  put_summary(j, b.summary);
  put(j, "cudnn_tf32", b.cudnn_tf32);
  put(j, "copies_outputs", b.copies_outputs);
  put(j, "calls_per_round", b.calls_per_round);
  put(j, "device_checks", b.device_checks);
  put(j, "mode", b.mode);
  return j;
}

BaselineRounds read_baseline(const json& j) {
  FieldReader r(j);
  BaselineRounds b;
  b.summary = read_summary(r);
  b.cudnn_tf32 = r.boolean("cudnn_tf32");
  b.copies_outputs = r.boolean("copies_outputs");
  b.calls_per_round = r.integer("calls_per_round");
  b.device_checks = r.any("device_checks");
  b.mode = r.string("mode");
  b.unknown_fields = r.rest();
  return b;
}

// The key of a baseline's timing: "baseline" for eager (the first and, on the host, only one), else
// "baseline_<name>".
std::string baseline_key(const std::string& name) { return name == "eager" ? "baseline" : "baseline_" + name; }

json timing_json(const TimingRecord& t) {
  json j = t.unknown_fields.is_object() ? t.unknown_fields : json::object();
  put(j, "slots", t.slots);
  put(j, "repeatable_inputs", t.repeatable_inputs);
  put(j, "inputs_repeated", t.inputs_repeated);
  put(j, "repeated_inputs", t.repeated_inputs);
  if (t.candidate) j["candidate"] = candidate_json(*t.candidate);
  if (t.candidate_events) j["candidate_events"] = candidate_json(*t.candidate_events);
  for (const auto& [name, b] : t.baselines) j[baseline_key(name)] = baseline_json(b);
  put(j, "baseline_error", t.baseline_error);
  put(j, "copy_bandwidth_gbps", t.copy_bandwidth_gbps);
  put(j, "floor_ms", t.floor_ms);
  return j;
}

TimingRecord read_timing(const json& j) {
  FieldReader r(j);
  TimingRecord t;
  t.slots = r.integer("slots");
  t.repeatable_inputs = r.boolean("repeatable_inputs");
  t.inputs_repeated = r.boolean("inputs_repeated");
  t.repeated_inputs = r.any("repeated_inputs");
  t.candidate = r.parsed<CandidateRounds>("candidate", read_candidate);
  t.candidate_events = r.parsed<CandidateRounds>("candidate_events", read_candidate);
  t.baseline_error = r.string("baseline_error");
  t.copy_bandwidth_gbps = r.number("copy_bandwidth_gbps");
  t.floor_ms = r.number("floor_ms");
  if (auto b = r.parsed<BaselineRounds>("baseline", read_baseline)) t.baselines["eager"] = *b;
  std::vector<std::string> others;
  for (const auto& [key, value] : r.rest().items())
    if (key.rfind("baseline_", 0) == 0 && value.is_object()) others.push_back(key);
  for (const auto& key : others)
    if (auto b = r.parsed<BaselineRounds>(key.c_str(), read_baseline))
      t.baselines[key.substr(std::string("baseline_").size())] = *b;
  t.unknown_fields = r.rest();
  return t;
}

json output_json(const TrialOutput& o) {
  json j = o.unknown_fields.is_object() ? o.unknown_fields : json::object();
  j["name"] = o.name;
  j["dtype"] = o.dtype;
  j["rel_l2"] = o.rel_l2;
  j["max_abs"] = o.max_abs;
  j["ref_rms"] = o.ref_rms;
  j["violations"] = o.violations;
  j["nan_inf_mismatch"] = o.nan_inf_mismatch;
  j["unwritten"] = o.unwritten;
  j["mismatched_exact"] = o.mismatched_exact;
  j["coverage"] = o.coverage;
  j["trivial"] = json::object();
  for (const auto& [name, t] : o.trivial) j["trivial"][name] = {{"rel_l2", t.rel_l2}, {"distance", t.distance}};
  if (o.precision)
    j["precision"] = {
        {"error", o.precision->error}, {"ref_error", o.precision->ref_error}, {"ratio", o.precision->ratio}};
  return j;
}

TrialOutput read_output(const json& j) {
  FieldReader r(j);
  TrialOutput o;
  o.name = r.string("name").value_or("");
  o.dtype = r.string("dtype").value_or("");
  o.rel_l2 = r.number("rel_l2").value_or(0);
  o.max_abs = r.number("max_abs").value_or(0);
  o.ref_rms = r.number("ref_rms").value_or(0);
  o.violations = r.integer64("violations").value_or(0);
  o.nan_inf_mismatch = r.integer64("nan_inf_mismatch").value_or(0);
  o.unwritten = r.integer64("unwritten").value_or(0);
  o.mismatched_exact = r.integer64("mismatched_exact").value_or(0);
  o.coverage = r.number("coverage").value_or(1);
  if (auto trivial = r.object("trivial"))
    for (const auto& [name, t] : trivial->items()) {
      FieldReader tr(t);
      o.trivial[name] = {tr.number("rel_l2").value_or(0), tr.number("distance").value_or(0)};
    }
  if (auto p = r.object("precision")) {
    FieldReader pr(*p);
    o.precision = PrecisionFigures{pr.number("error").value_or(0), pr.number("ref_error").value_or(0),
                                   pr.number("ratio").value_or(0)};
  }
  o.unknown_fields = r.rest();
  return o;
}

json trial_json(const TrialRecord& t) {
  json j = t.unknown_fields.is_object() ? t.unknown_fields : json::object();
  j["trial"] = t.trial;
  j["label"] = t.label;
  if (t.skipped) {
    j["skipped"] = *t.skipped;
    return j;
  }
  j["seed"] = t.seed ? json(*t.seed) : json();
  j["variant"] = t.variant;
  put(j, "shapes", t.shapes);
  j["outputs"] = json::array();
  for (const auto& o : t.outputs) j["outputs"].push_back(output_json(o));
  j["inputs_modified"] = t.inputs_modified;
  put(j, "call_ms", t.call_ms);
  return j;
}

TrialRecord read_trial(const json& j) {
  FieldReader r(j);
  TrialRecord t;
  t.trial = r.integer("trial").value_or(0);
  t.label = r.string("label").value_or("");
  t.skipped = r.string("skipped");
  if (!t.skipped) {
    t.seed = r.unsigned64("seed");
    if (auto s = r.rest().find("seed"); s != r.rest().end() && s->is_null()) r.rest().erase(s);
    t.variant = r.string("variant").value_or("");
    t.shapes = r.any("shapes");
    if (auto outputs = r.array("outputs"))
      for (const auto& o : *outputs) t.outputs.push_back(read_output(o));
    t.inputs_modified = r.any("inputs_modified").value_or(json());
    t.call_ms = r.number("call_ms");
  }
  t.unknown_fields = r.rest();
  return t;
}

json static_json(const StaticChecks& s) {
  const bool added = s.reference_ops || s.reference_units || s.coverage || s.torch_compute || s.reference_ops_error;
  if (!added) return s.findings;
  json j = s.findings.is_object() ? s.findings : json::object();
  put(j, "reference_ops", s.reference_ops);
  put(j, "reference_units", s.reference_units);
  put(j, "coverage", s.coverage);
  put(j, "torch_compute", s.torch_compute);
  put(j, "reference_ops_error", s.reference_ops_error);
  return j;
}

StaticChecks read_static(const json& j) {
  StaticChecks s;
  if (!j.is_object()) {
    s.findings = j;
    return s;
  }
  FieldReader r(j);
  s.reference_ops = r.strings("reference_ops");
  if (auto units = r.object("reference_units")) {
    std::map<std::string, int64_t> m;
    bool all_counts = true;
    for (const auto& [op, n] : units->items()) {
      if (!n.is_number_integer())
        all_counts = false;
      else
        m[op] = n.get<int64_t>();
    }
    if (all_counts)
      s.reference_units = m;
    else
      r.rest()["reference_units"] = *units;
  }
  s.coverage = r.any("coverage");
  s.torch_compute = r.strings("torch_compute");
  s.reference_ops_error = r.string("reference_ops_error");
  s.findings = r.rest();
  return s;
}

}  // namespace

TimingRecord& Checks::timing_record() {
  if (!timing) timing.emplace();
  return *timing;
}

std::vector<TrialRecord>& Checks::trial_records() {
  if (!trials) trials.emplace();
  return *trials;
}

json Checks::to_json() const {
  json j = unknown_fields.is_object() ? unknown_fields : json::object();
  put(j, "candidate", candidate);
  if (trials) {
    j["trials"] = json::array();
    for (const auto& t : *trials) j["trials"].push_back(trial_json(t));
  }
  put(j, "degenerate", degenerate);
  put(j, "precision", precision);
  put(j, "tolerances", tolerances);
  put(j, "reduced_precision_allowed", reduced_precision_allowed);
  if (static_check) j["static"] = static_json(*static_check);
  put(j, "build", build);
  put(j, "input_generator", input_generator);
  put(j, "seed", seed);
  if (timing) j["timing"] = timing_json(*timing);
  put(j, "device_before", device_before);
  put(j, "startup_limit_s", startup_limit_s);
  put(j, "first_call_limit_s", first_call_limit_s);
  put(j, "call_limit_s", call_limit_s);
  put(j, "limit_hit", limit_hit);
  put(j, "runner_frozen_between_rounds", runner_frozen_between_rounds);
  put(j, "custom_kernel_calls", custom_kernel_calls);
  put(j, "helper_processes_ended", helper_processes_ended);
  if (replay) j["replay"] = {{"trusted", replay->trusted}, {"calls", replay->calls}, {"seconds", replay->seconds}};
  put(j, "attribution", attribution);
  put(j, "attribution_basis", attribution_basis);
  put(j, "attribution_why", attribution_why);
  put(j, "runner_tree_empty", runner_tree_empty);
  put(j, "bytes_moved", bytes_moved);
  put(j, "roofline_error", roofline_error);
  if (profile) j["profile"] = profile->to_json();
  put(j, "profile_error", profile_error);
  if (!phases_s.empty()) j["phases_s"] = phases_s;
  return j;
}

Checks Checks::from_json(const json& j) {
  FieldReader r(j);
  Checks c;
  c.candidate = r.string("candidate");
  if (auto trials = r.array("trials")) {
    c.trials.emplace();
    for (const auto& t : *trials) c.trials->push_back(read_trial(t));
  }
  c.degenerate = r.strings("degenerate");
  c.precision = r.string("precision");
  c.tolerances = r.any("tolerances");
  c.reduced_precision_allowed = r.boolean("reduced_precision_allowed");
  if (auto s = r.any("static")) c.static_check = read_static(*s);
  c.build = r.any("build");
  c.input_generator = r.any("input_generator");
  c.seed = r.unsigned64("seed");
  c.timing = r.parsed<TimingRecord>("timing", read_timing);
  c.device_before = r.any("device_before");
  c.startup_limit_s = r.number("startup_limit_s");
  c.first_call_limit_s = r.number("first_call_limit_s");
  c.call_limit_s = r.number("call_limit_s");
  c.limit_hit = r.string("limit_hit");
  c.runner_frozen_between_rounds = r.boolean("runner_frozen_between_rounds");
  c.custom_kernel_calls = r.integer64("custom_kernel_calls");
  c.helper_processes_ended = r.integer("helper_processes_ended");
  c.replay = r.parsed<ReplayFigures>("replay", [](const json& o) {
    FieldReader rr(o);
    return ReplayFigures{rr.boolean("trusted").value_or(false), rr.integer("calls").value_or(0),
                         rr.number("seconds").value_or(0)};
  });
  c.attribution = r.string("attribution");
  c.attribution_basis = r.string("attribution_basis");
  c.attribution_why = r.any("attribution_why");
  c.runner_tree_empty = r.boolean("runner_tree_empty");
  c.bytes_moved = r.integer64("bytes_moved");
  c.roofline_error = r.string("roofline_error");
  if (auto p = r.any("profile")) {
    c.profile = KernelProfile::from_json(*p);
    if (!c.profile) r.rest()["profile"] = *p;  // no figure in it: kept as it was
  }
  c.profile_error = r.string("profile_error");
  if (auto phases = r.object("phases_s")) {
    bool all_numbers = !phases->empty();
    for (const auto& [name, s] : phases->items()) all_numbers = all_numbers && s.is_number();
    if (all_numbers)
      for (const auto& [name, s] : phases->items()) c.phases_s[name] = s.get<double>();
    else
      r.rest()["phases_s"] = *phases;
  }
  c.unknown_fields = r.rest();
  return c;
}

}  // namespace kf::eval
