// The verdict's JSON (docs/evaluator.md, "JSON"): written by the evaluator, its timings and yardsticks read
// back by the agent's feedback, loop and reports.
#include "evaluator/verdict.h"

#include <algorithm>

namespace kf::eval {

nlohmann::json Verdict::to_json() const {
  nlohmann::json j;
  j["problem"] = problem;
  j["backend"] = backend;
  j["candidate_kind"] = candidate_kind;
  j["verdict"] = verdict;
  j["correct"] = correct;
  j["reasons"] = nlohmann::json::array();
  for (const auto& r : reasons) j["reasons"].push_back({{"code", r.code}, {"detail", r.detail}});
  j["checks"] = checks;
  j["time_ms"] = time_ms ? nlohmann::json(*time_ms) : nlohmann::json(nullptr);
  j["ref_time_ms"] = ref_time_ms ? nlohmann::json(*ref_time_ms) : nlohmann::json(nullptr);
  j["speedup"] = speedup ? nlohmann::json(*speedup) : nlohmann::json(nullptr);
  j["baseline"] = baseline;
  j["baselines"] = nlohmann::json::object();
  for (const auto& [name, b] : baselines) {
    nlohmann::json e{{"time_ms", b.time_ms ? nlohmann::json(*b.time_ms) : nullptr},
                     {"speedup", b.speedup ? nlohmann::json(*b.speedup) : nullptr},
                     {"peak", b.peak ? b.peak->to_json() : nullptr}};
    if (!b.error.empty()) e["error"] = b.error;
    if (name != "eager") {
      e["compile_s"] = b.compile_s;
      e["compile_cached"] = b.compile_cached;
    }
    j["baselines"][name] = e;
  }
  if (roofline) {
    j["roofline"] = {{"work", roofline->work.to_json()}, {"shapes", roofline->shapes},
                     {"device", roofline->peaks.to_json()}};
    if (!roofline->error.empty()) j["roofline"]["error"] = roofline->error;
  } else {
    j["roofline"] = nullptr;
  }
  j["peak"] = peak ? peak->to_json() : nlohmann::json(nullptr);
  j["flags"] = flags;
  j["compile_s"] = compile_s;
  j["eval_s"] = eval_s;
  j["compiler_output"] = compiler_output;
  return j;
}

namespace {
std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}
// Fields read by type: a corpus file is text anyone could have edited.
std::string string_at(const nlohmann::json& j, const char* key, const std::string& otherwise = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : otherwise;
}
bool bool_at(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
const nlohmann::json& at_or_null(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  auto it = j.find(key);
  return it != j.end() ? *it : null;
}
}  // namespace

Verdict Verdict::yardsticks_from_json(const nlohmann::json& j) {
  Verdict v;
  if (!j.is_object()) return v;
  v.verdict = string_at(j, "verdict");
  v.correct = bool_at(j, "correct");
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
  return v;
}

nlohmann::json Verdict::with_primary_baseline(nlohmann::json verdict, const std::string& name) {
  if (!verdict.is_object() || string_at(verdict, "baseline", "eager") == name) return verdict;
  auto bs = verdict.find("baselines");
  if (bs == verdict.end() || !bs->is_object() || bs->empty()) return verdict;  // nothing timed: nothing to choose
  auto b = bs->find(name);
  if (b == bs->end() || !b->is_object() || !number_at(*b, "time_ms")) {
    auto& flags = verdict["flags"];
    if (!flags.is_array()) flags = nlohmann::json::array();
    if (std::find(flags.begin(), flags.end(), "primary_baseline_unavailable") == flags.end())
      flags.push_back("primary_baseline_unavailable");
    return verdict;
  }
  verdict["baseline"] = name;
  verdict["ref_time_ms"] = (*b)["time_ms"];
  verdict["speedup"] = at_or_null(*b, "speedup").is_number() ? (*b)["speedup"] : nlohmann::json();
  return verdict;
}

int Verdict::exit_code() const {
  if (verdict == "correct") return 0;
  for (const auto& r : reasons)
    if (r.code.rfind("problem.", 0) == 0 || r.code.rfind("usage.", 0) == 0) return 2;
  if (verdict == "harness_error") return 3;
  return 1;
}

}  // namespace kf::eval
