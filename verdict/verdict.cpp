// The verdict's JSON both ways (docs/evaluator.md, "JSON"): written by the evaluator and the campaign, read
// back from corpora and results files by everything that reports on them.
#include "verdict/verdict.h"

#include <algorithm>
#include <cmath>

namespace kf::eval {

namespace {

// The fields to_json writes; a recorded verdict's others are kept in unknown_fields.
constexpr const char* kKnownFields[] = {"problem",   "backend",   "candidate_kind", "verdict",     "correct",
                                        "reasons",   "checks",    "time_ms",        "ref_time_ms", "speedup",
                                        "baseline",  "baselines", "roofline",       "peak",        "flags",
                                        "compile_s", "eval_s",    "compiler_output"};

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json reasons_json(const std::vector<Reason>& reasons) {
  auto a = nlohmann::json::array();
  for (const auto& r : reasons) a.push_back({{"code", r.code}, {"detail", r.detail}});
  return a;
}

}  // namespace

const Verdict& Verdict::none() {
  static const Verdict v = from_json(nlohmann::json());
  return v;
}

Verdict Verdict::no_code(const std::string& failure, const std::string& message) {
  Verdict v;
  v.kind = VerdictKind::no_code;
  v.reasons.push_back({"no_code." + failure, message});
  return v;
}

std::string Verdict::name() const {
  return kind == VerdictKind::unknown && !recorded_name.empty() ? recorded_name : to_string(kind);
}

namespace {
// A verdict read from a file keeps the fields it had, and only those.
nlohmann::json as_recorded(nlohmann::json j, const std::vector<std::string>& recorded_fields) {
  if (recorded_fields.empty()) return j;
  for (const char* k : kKnownFields)
    if (std::find(recorded_fields.begin(), recorded_fields.end(), k) == recorded_fields.end()) j.erase(k);
  return j;
}
}  // namespace

nlohmann::json Verdict::to_json() const {
  nlohmann::json j = unknown_fields.is_object() ? unknown_fields : nlohmann::json::object();
  j["verdict"] = name();
  j["correct"] = correct();
  j["reasons"] = reasons_json(reasons);
  j["checks"] = checks.to_json();
  j["time_ms"] = optional_number(time_ms);
  j["ref_time_ms"] = optional_number(ref_time_ms);
  j["speedup"] = optional_number(speedup);
  j["flags"] = flags;
  // A reply without source was never evaluated: its record keeps the short form it always had.
  if (kind == VerdictKind::no_code) return as_recorded(std::move(j), recorded_fields);
  j["problem"] = problem;
  j["backend"] = backend;
  j["candidate_kind"] = candidate_kind;
  j["baseline"] = baseline;
  j["baselines"] = nlohmann::json::object();
  for (const auto& [name, b] : baselines) {
    nlohmann::json e{{"time_ms", optional_number(b.time_ms)},
                     {"speedup", optional_number(b.speedup)},
                     {"peak", b.peak ? b.peak->to_json() : nullptr}};
    if (!b.error.empty()) e["error"] = b.error;
    if (name != "eager") {
      e["compile_s"] = b.compile_s;
      e["compile_cached"] = b.compile_cached;
    }
    j["baselines"][name] = e;
  }
  if (roofline) {
    j["roofline"] = {
        {"work", roofline->work.to_json()}, {"shapes", roofline->shapes}, {"device", roofline->peaks.to_json()}};
    if (!roofline->error.empty()) j["roofline"]["error"] = roofline->error;
  } else {
    j["roofline"] = nullptr;
  }
  j["peak"] = peak ? peak->to_json() : nlohmann::json(nullptr);
  j["compile_s"] = compile_s;
  j["eval_s"] = eval_s;
  j["compiler_output"] = compiler_output;
  return as_recorded(std::move(j), recorded_fields);
}

namespace {
std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}
std::optional<std::string> optional_string_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
}
std::string string_at(const nlohmann::json& j, const char* key, const std::string& otherwise = "") {
  return optional_string_at(j, key).value_or(otherwise);
}
std::optional<bool> optional_bool_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
}
bool bool_at(const nlohmann::json& j, const char* key) { return optional_bool_at(j, key).value_or(false); }
const nlohmann::json& at_or_null(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it != j.end() ? *it : null;
}
bool known_field(const std::string& key) {
  for (const char* k : kKnownFields)
    if (key == k) return true;
  return false;
}
}  // namespace

Verdict Verdict::from_json(const nlohmann::json& j) {
  Verdict v;
  v.kind = VerdictKind::unknown;
  if (!j.is_object()) return v;
  v.kind = recorded_kind(optional_string_at(j, "verdict"), optional_bool_at(j, "correct"));
  if (v.kind == VerdictKind::unknown) v.recorded_name = string_at(j, "verdict");
  v.problem = string_at(j, "problem");
  v.backend = string_at(j, "backend");
  v.candidate_kind = string_at(j, "candidate_kind", "kf_forward");
  if (auto rs = j.find("reasons"); rs != j.end() && rs->is_array())
    for (const auto& r : *rs)
      if (auto code = optional_string_at(r, "code")) v.reasons.push_back({*code, string_at(r, "detail")});
  if (auto c = j.find("checks"); c != j.end() && c->is_object()) v.checks = Checks::from_json(*c);
  v.time_ms = number_at(j, "time_ms");
  v.ref_time_ms = number_at(j, "ref_time_ms");
  v.speedup = number_at(j, "speedup");
  v.baseline = string_at(j, "baseline", "eager");
  if (auto bs = j.find("baselines"); bs != j.end() && bs->is_object()) {
    for (const auto& [name, b] : bs->items()) {
      if (!b.is_object()) continue;
      BaselineTime t;
      t.time_ms = number_at(b, "time_ms");
      t.speedup = number_at(b, "speedup");
      t.error = string_at(b, "error");
      t.compile_s = number_at(b, "compile_s").value_or(0);
      t.compile_cached = bool_at(b, "compile_cached");
      t.peak = PeakFraction::from_json(at_or_null(b, "peak"));
      v.baselines[name] = t;
    }
  } else if (v.ref_time_ms) {
    v.baselines["eager"] = BaselineTime{v.ref_time_ms, v.speedup, "", 0, false, std::nullopt};
  }
  if (auto rl = j.find("roofline"); rl != j.end() && rl->is_object()) {
    Roofline r;
    r.work = Work::from_json(at_or_null(*rl, "work"));
    r.peaks = DevicePeaks::from_json(at_or_null(*rl, "device"));
    r.error = string_at(*rl, "error");
    if (auto sh = rl->find("shapes"); sh != rl->end() && sh->is_array())
      for (const auto& s : *sh) r.shapes.push_back(s);
    v.roofline = r;
  }
  v.peak = PeakFraction::from_json(at_or_null(j, "peak"));
  if (auto fs = j.find("flags"); fs != j.end() && fs->is_array())
    for (const auto& f : *fs)
      if (f.is_string()) v.flags.push_back(f.get<std::string>());
  v.compile_s = number_at(j, "compile_s").value_or(0);
  v.eval_s = number_at(j, "eval_s").value_or(0);
  v.compiler_output = string_at(j, "compiler_output");
  for (const auto& [key, value] : j.items()) {
    if (known_field(key))
      v.recorded_fields.push_back(key);
    else
      v.unknown_fields[key] = value;
  }
  return v;
}

namespace {
std::optional<TimingSpread> spread_of(const TimingSummary& s) {
  if (!s.p10_ms || !s.p90_ms || !std::isfinite(*s.p10_ms) || !std::isfinite(*s.p90_ms)) return std::nullopt;
  return TimingSpread{*s.p10_ms, *s.p90_ms};
}
}  // namespace

const std::optional<TimingSpread>& TimingChecks::primary_baseline(const std::string& name) const {
  return name == "compile" ? baseline_compile : baseline;
}

TimingChecks Verdict::timing_checks() const {
  TimingChecks t;
  if (!checks.timing) return t;
  const TimingRecord& timing = *checks.timing;
  // "candidate": the trusted rounds' timing; "candidate_events": corpora written before the rounds were trusted.
  if (timing.candidate)
    t.candidate = spread_of(timing.candidate->summary);
  else if (timing.candidate_events)
    t.candidate = spread_of(timing.candidate_events->summary);
  if (auto b = timing.baselines.find("eager"); b != timing.baselines.end()) t.baseline = spread_of(b->second.summary);
  if (auto b = timing.baselines.find("compile"); b != timing.baselines.end())
    t.baseline_compile = spread_of(b->second.summary);
  t.inputs_repeated = timing.inputs_repeated.value_or(false);
  return t;
}

std::string Verdict::attribution() const { return checks.attribution.value_or(""); }

std::optional<Reason> Verdict::deciding_reason() const {
  if (reasons.empty()) return std::nullopt;
  const std::string name = to_string(kind);
  for (const auto& r : reasons)
    if (r.code == name || r.code.rfind(name + ".", 0) == 0) return r;
  return reasons.front();
}

void Verdict::choose_primary_baseline(const std::string& name) {
  if (baseline == name || baselines.empty()) return;  // nothing timed: nothing to choose
  auto b = baselines.find(name);
  if (b == baselines.end() || !b->second.time_ms) {
    if (std::find(flags.begin(), flags.end(), "primary_baseline_unavailable") == flags.end())
      flags.push_back("primary_baseline_unavailable");
    return;
  }
  baseline = name;
  ref_time_ms = b->second.time_ms;
  speedup = b->second.speedup;
}

int Verdict::exit_code() const {
  if (correct()) return 0;
  for (const auto& r : reasons)
    if (r.code.rfind("problem.", 0) == 0 || r.code.rfind("usage.", 0) == 0) return 2;
  if (kind == VerdictKind::harness_error) return 3;
  return 1;
}

}  // namespace kf::eval
