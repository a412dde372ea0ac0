#include "agent/claims/reverify_results.h"

#include <filesystem>
#include <system_error>

#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
using json = nlohmann::json;
namespace {

// Tolerant reads: a field of the wrong type reads as absent.
std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
std::optional<double> number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}
int integer(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}
const json& object(const json& j, const char* key) {
  static const json none = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : none;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

json interval_json(const std::optional<SpeedupInterval>& i) { return i ? json::array({i->low, i->high}) : json(); }
std::optional<SpeedupInterval> interval_of(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number())
    return std::nullopt;
  return SpeedupInterval{(*it)[0].get<double>(), (*it)[1].get<double>()};
}

std::optional<corpus::EvaluatorRef> evaluator_of(const json& j) {
  auto it = j.find("evaluator");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  try {
    return corpus::EvaluatorRef::from_json(*it);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

json ReverifyEntry::to_json() const {
  json j{{"config", config},
         {"problem", problem.to_json()},
         {"sample", sample},
         {"turn", turn},
         {"claimed_speedup", opt(claimed_speedup)},
         {"status", status}};
  if (evaluator) j["evaluator"] = evaluator->to_json();
  if (judged()) {
    j["verdict"] = verdict->to_json();
    j["speedup"] = opt(speedup);
  }
  if (!imported) {
    j["best"] = best;
    if (!judged()) j["detail"] = detail;
    j["speedup_check"] = speedup_check;
    j["claimed_interval"] = interval_json(claimed_interval);
    j["interval"] = interval_json(interval);
    return j;
  }
  j["kind"] = "imported";
  j["run"] = run;
  j["level"] = level;
  j["problem_number"] = problem_number;
  j["claimed"] = claimed.restated_json();
  j["reference_differs"] = reference_differs;
  j["task_quality"] = task_quality;
  if (reference_differs) j["reference_summary"] = reference_summary;
  j["detail"] = detail;
  if (!judged()) return j;
  j["reason"] = reason;
  j["hack_class"] = hack_class;
  j["baseline_kind"] = baseline_kind;
  j["hardware_differs"] = hardware_differs;
  j["baselines"] = json::array();
  for (const auto& b : baselines)
    j["baselines"].push_back({{"baseline", b.baseline},
                              {"claimed", b.claimed},
                              {"measured", opt(b.measured)},
                              {"interval", interval_json(b.interval)},
                              {"outcome", b.outcome}});
  j["interval"] = interval_json(interval);
  if (claimed_reference) {
    const auto& c = *claimed_reference;
    json& then = j["claimed_reference"];
    then = {{"status", c.status}, {"detail", c.detail}};
    if (c.judged) {
      then["reason"] = c.reason;
      then["hack_class"] = c.hack_class;
      then["verdict"] = c.verdict ? c.verdict->to_json() : json();
      then["speedup"] = opt(c.speedup);
      then["interval"] = interval_json(c.interval);
    }
  }
  return j;
}

std::optional<ReverifyEntry> ReverifyEntry::from_json(const json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto problem = corpus::ProblemRef::salvage(object(j, "problem"));
  auto sample = j.find("sample"), turn = j.find("turn");
  if (!(j.contains("config") && j["config"].is_string()) || !(j.contains("status") && j["status"].is_string()) ||
      !problem || sample == j.end() || !sample->is_number_integer() || turn == j.end() || !turn->is_number_integer())
    return std::nullopt;
  ReverifyEntry e;
  e.imported = str(j, "kind") == "imported";
  e.config = str(j, "config");
  e.problem = *problem;
  e.sample = sample->get<int>();
  e.turn = turn->get<int>();
  e.status = str(j, "status");
  e.detail = str(j, "detail");
  e.claimed_speedup = number(j, "claimed_speedup");
  e.evaluator = evaluator_of(j);
  if (auto v = j.find("verdict"); v != j.end() && v->is_object()) e.verdict = eval::Verdict::from_json(*v);
  e.speedup = number(j, "speedup");
  e.interval = interval_of(j, "interval");
  e.best = flag(j, "best");
  e.speedup_check = str(j, "speedup_check");
  e.claimed_interval = interval_of(j, "claimed_interval");
  e.run = str(j, "run");
  e.level = integer(j, "level");
  e.problem_number = integer(j, "problem_number");
  e.claimed = corpus::Claim::from_restated_json(object(j, "claimed"));
  e.reference_differs = flag(j, "reference_differs");
  e.reference_summary = str(j, "reference_summary");
  e.task_quality = str(j, "task_quality");
  e.reason = str(j, "reason");
  e.hack_class = str(j, "hack_class");
  e.baseline_kind = str(j, "baseline_kind");
  e.hardware_differs = flag(j, "hardware_differs");
  if (auto b = j.find("baselines"); b != j.end() && b->is_array())
    for (const auto& x : *b)
      if (x.is_object())
        e.baselines.push_back({str(x, "baseline"), number(x, "claimed").value_or(0), number(x, "measured"),
                               interval_of(x, "interval"), str(x, "outcome")});
  if (auto r = j.find("claimed_reference"); r != j.end() && r->is_object()) {
    ClaimedReferenceCheck c2;
    c2.status = str(*r, "status");
    c2.detail = str(*r, "detail");
    c2.judged = r->contains("verdict");
    c2.reason = str(*r, "reason");
    c2.hack_class = str(*r, "hack_class");
    if (auto v = r->find("verdict"); v != r->end() && v->is_object()) c2.verdict = eval::Verdict::from_json(*v);
    c2.speedup = number(*r, "speedup");
    c2.interval = interval_of(*r, "interval");
    e.claimed_reference = std::move(c2);
  }
  return e;
}

json ReverifyDocument::to_json() const {
  json doc = {{"corpus", corpus},
              {"seed", seed},
              {"backend", backend},
              {"holds", holds},
              {"not_holding", not_holding},
              {"claimed_faster", claimed_faster},
              {"verified_speedups", verified_speedups},
              {"recorded_at", recorded_at},
              {"kernels", json::array()}};
  for (const auto& k : kernels) doc["kernels"].push_back(k.to_json());
  if (not_judged) doc["not_judged"] = *not_judged;
  if (imported)
    doc["imported"] = {{"solutions", imported->solutions},
                       {"all", imported->all},
                       {"by_status", imported->by_status},
                       {"rejected_by_class", imported->rejected_by_class}};
  if (!environment.is_null()) doc["environment"] = environment;
  doc["evaluators"] = json::array();
  for (const auto& e : evaluators) doc["evaluators"].push_back(e.to_json());
  return doc;
}

std::string ReverifyDocument::text() const { return to_json().dump(2) + "\n"; }

Result<std::string> ReverifyDocument::write(const std::string& dir, const std::string& also) const {
  const std::string file = (fs::path(dir) / kReverifyFile).string();
  const std::string content = text();
  for (const std::string& f : {file, also})
    if (!f.empty())
      if (auto st = write_file_atomic(f, content); !st) return st.error();
  return file;
}

Result<ReverifyDocument> ReverifyDocument::parse(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("kernels") || !doc["kernels"].is_array())
    return make_error("reverify.unreadable",
                      origin + " has no \"kernels\" array: it was not written by `kforge reverify`");
  ReverifyDocument d;
  d.corpus = str(doc, "corpus");
  d.seed = doc.value("seed", json());
  d.backend = str(doc, "backend");
  d.holds = integer(doc, "holds");
  d.not_holding = integer(doc, "not_holding");
  d.claimed_faster = integer(doc, "claimed_faster");
  d.verified_speedups = integer(doc, "verified_speedups");
  d.recorded_at = str(doc, "recorded_at");
  if (auto it = doc.find("not_judged"); it != doc.end() && it->is_number_unsigned()) d.not_judged = it->get<size_t>();
  for (const auto& k : doc["kernels"])
    if (auto e = ReverifyEntry::from_json(k)) d.kernels.push_back(std::move(*e));
  if (auto it = doc.find("imported"); it != doc.end() && it->is_object()) {
    ImportedSummary s;
    s.solutions = static_cast<size_t>(integer(*it, "solutions"));
    s.all = flag(*it, "all");
    for (const char* key : {"by_status", "rejected_by_class"})
      for (const auto& [k, v] : object(*it, key).items())
        if (v.is_number_integer())
          (std::string(key) == "by_status" ? s.by_status : s.rejected_by_class)[k] = v.get<int>();
    d.imported = std::move(s);
  }
  if (auto it = doc.find("environment"); it != doc.end()) d.environment = *it;
  if (auto it = doc.find("evaluators"); it != doc.end() && it->is_array())
    for (const auto& e : *it) {
      if (!e.is_object()) continue;
      try {
        d.evaluators.push_back(corpus::EvaluatorRef::from_json(e));
      } catch (const std::exception&) {
      }
    }
  return d;
}

Result<std::optional<ReverifyDocument>> ReverifyDocument::load(const std::string& dir) {
  const std::string file = (fs::path(dir) / kReverifyFile).string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<ReverifyDocument>();
  auto text = read_file(file);
  if (!text) return text.error();
  auto doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return make_error("reverify.unreadable",
                      file + " is not valid JSON: rerun `kforge reverify " + dir + "` or remove the file");
  auto parsed = parse(doc, file);
  if (!parsed) return parsed.error();
  return std::optional<ReverifyDocument>(std::move(*parsed));
}

ReverifyResults::ReverifyResults(ReverifyDocument doc, std::string origin)
    : doc_(std::move(doc)), origin_(std::move(origin)) {
  for (size_t i = 0; i < doc_.kernels.size(); ++i) {
    const auto& k = doc_.kernels[i];
    by_kernel_[Key{k.config, k.problem.name, k.sample, k.turn}] = i;
  }
}

Result<std::optional<ReverifyResults>> ReverifyResults::load(const std::string& dir) {
  auto doc = ReverifyDocument::load(dir);
  if (!doc) return doc.error();
  if (!*doc) return std::optional<ReverifyResults>();
  return std::optional<ReverifyResults>(ReverifyResults(std::move(**doc), (fs::path(dir) / kReverifyFile).string()));
}

Result<ReverifyResults> ReverifyResults::parse(const json& doc, const std::string& origin) {
  auto parsed = ReverifyDocument::parse(doc, origin);
  if (!parsed) return parsed.error();
  return ReverifyResults(std::move(*parsed), origin);
}

const ReverifyEntry* ReverifyResults::entry_of(const corpus::Record& r) const {
  auto it = by_kernel_.find({r.config, r.problem.name, r.sample, r.turn});
  if (it == by_kernel_.end()) return nullptr;
  const ReverifyEntry& e = doc_.kernels[it->second];
  const std::string& hash = r.problem.file_hash;
  if (!e.problem.file_hash.empty() && !hash.empty() && e.problem.file_hash != hash) return nullptr;
  return &e;
}

std::optional<std::string> ReverifyResults::status_of(const corpus::Record& r) const {
  const ReverifyEntry* e = entry_of(r);
  if (!e) return std::nullopt;
  return e->status;
}

}  // namespace kf::agent
