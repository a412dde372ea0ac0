#include "corpus/record.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "core/time.h"

namespace kf::corpus {
namespace {

using json = nlohmann::json;

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out;
}

// A field of the wrong type: the record is damaged.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads optional fields of an object; a present field of the wrong type is an error naming its path.
class Fields {
 public:
  Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {}
  bool has(const char* k) const { return j_.contains(k) && !j_[k].is_null(); }
  std::string str(const char* k, bool required = false) const {
    if (!has(k)) return missing<std::string>(k, required);
    if (!j_[k].is_string()) throw FieldError(path(k) + " is not a string");
    return j_[k].get<std::string>();
  }
  int64_t integer(const char* k, bool required = false) const {
    if (!has(k)) return missing<int64_t>(k, required);
    if (!j_[k].is_number_integer() && !j_[k].is_number_unsigned()) throw FieldError(path(k) + " is not an integer");
    return j_[k].get<int64_t>();
  }
  double number(const char* k) const { return opt_number(k).value_or(0); }
  std::optional<double> opt_number(const char* k) const {
    if (!has(k)) return std::nullopt;
    if (!j_[k].is_number()) throw FieldError(path(k) + " is not a number");
    return j_[k].get<double>();
  }
  std::optional<bool> boolean(const char* k) const {
    if (!has(k)) return std::nullopt;
    if (!j_[k].is_boolean()) throw FieldError(path(k) + " is not a boolean");
    return j_[k].get<bool>();
  }
  Fields object(const char* k, bool required = false) const {
    static const json empty = json::object();
    if (!has(k)) {
      if (required) throw FieldError("missing field " + path(k));
      return Fields(empty, path(k));
    }
    if (!j_[k].is_object()) throw FieldError(path(k) + " is not an object");
    return Fields(j_[k], path(k));
  }

 private:
  template <class T>
  T missing(const char* k, bool required) const {
    if (required) throw FieldError("missing field " + path(k));
    return T{};
  }
  std::string path(const char* k) const { return where_.empty() ? k : where_ + "." + k; }
  const json& j_;
  std::string where_;
};

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json source_json(const std::optional<SourceRef>& s) {
  return s ? json{{"path", s->path}, {"sha256", s->sha256}} : json(nullptr);
}

// An optional array of strings; anything else is a damaged record.
std::vector<std::string> strings(const json& parent, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!parent.contains(key) || parent[key].is_null()) return out;
  if (!parent[key].is_array()) throw FieldError(where + " is not an array");
  for (const auto& v : parent[key]) {
    if (!v.is_string()) throw FieldError(where + " holds a value that is not a string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

json Claim::to_json() const {
  // clang-format off
  json j = {{"compiled", opt(compiled)},     {"correct", opt(correct)},
            {"runtime_ms", opt(runtime_ms)}, {"baseline_ms", opt(baseline_ms)},
            {"speedup", opt(speedup)},       {"hardware", hardware},
            {"baseline_file", baseline_file}, {"raw", raw},
            {"model", model},                {"baseline_kind", baseline_kind},
            {"task_quality", task_quality},  {"task_quality_detail", task_quality_detail}};
  // clang-format on
  json list = json::array();
  for (const auto& s : speedups)
    list.push_back({{"baseline", s.baseline}, {"speedup", s.speedup}, {"baseline_ms", opt(s.baseline_ms)}});
  j["speedups"] = list;
  if (reference)
    // clang-format off
    j["reference"] = {{"path", reference->path},       {"sha256", reference->sha256},
                      {"origin", reference->origin},   {"differs", opt(reference->differs)},
                      {"summary", reference->summary}, {"changes", reference->changes}};
  // clang-format on
  return j;
}

json Claim::restated_json() const {
  const std::string kind = baseline_kind.empty() ? "eager" : baseline_kind;
  json by_baseline = json::object();
  for (const auto& s : speedups) by_baseline[s.baseline] = s.speedup;
  if (speedups.empty() && speedup) by_baseline[kind] = *speedup;
  // clang-format off
  return {{"compiled", opt(compiled)},   {"correct", opt(correct)}, {"runtime_ms", opt(runtime_ms)},
          {"baseline_ms", opt(baseline_ms)}, {"speedup", opt(speedup)}, {"hardware", hardware},
          {"model", model},             {"baseline_kind", kind},   {"speedups", by_baseline}};
  // clang-format on
}

Claim Claim::from_restated_json(const json& j) {
  Claim c;
  if (!j.is_object()) return c;
  auto flag = [&](const char* k) {
    return j.contains(k) && j[k].is_boolean() ? std::optional<bool>(j[k].get<bool>()) : std::nullopt;
  };
  auto num = [&](const char* k) {
    return j.contains(k) && j[k].is_number() ? std::optional<double>(j[k].get<double>()) : std::nullopt;
  };
  auto text = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  c.compiled = flag("compiled");
  c.correct = flag("correct");
  c.runtime_ms = num("runtime_ms");
  c.baseline_ms = num("baseline_ms");
  c.speedup = num("speedup");
  c.hardware = text("hardware");
  c.model = text("model");
  c.baseline_kind = text("baseline_kind");
  if (j.contains("speedups") && j["speedups"].is_object())
    for (const auto& [baseline, s] : j["speedups"].items())
      if (s.is_number()) c.speedups.push_back({baseline, s.get<double>(), std::nullopt});
  return c;
}

json Environment::to_json() const {
  return {{"kforge_version", kforge_version},
          {"backend", backend},
          {"gpu_name", gpu_name},
          {"gpu_arch", gpu_arch},
          {"torch", torch},
          {"cuda", cuda}};
}

std::string to_string(Kind k) {
  switch (k) {
    case Kind::evaluation: return "evaluation";
    case Kind::provider_failure: return "provider_failure";
    case Kind::harness_failure: return "harness_failure";
    case Kind::unit_done: return "unit_done";
    case Kind::imported: return "imported";
  }
  return "?";
}

std::optional<Kind> parse_kind(const std::string& t) {
  for (Kind k : {Kind::evaluation, Kind::provider_failure, Kind::harness_failure, Kind::unit_done, Kind::imported})
    if (to_string(k) == t) return k;
  return std::nullopt;
}

json ProblemRef::to_json() const {
  return {{"name", name}, {"file_hash", file_hash}, {"category", category}, {"path", path}};
}

std::optional<ProblemRef> ProblemRef::salvage(const json& j) {
  auto text = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return std::nullopt;
  return ProblemRef{text("name"), text("file_hash"), text("category"), text("path")};
}

std::string UnitKey::file_stem() const {
  return safe_name(config) + "__" + safe_name(problem) + "__s" + std::to_string(sample);
}

json EvaluatorRef::to_json() const {
  return {{"slot", slot},
          {"gpu_index", gpu_index ? json(*gpu_index) : json(nullptr)},
          {"gpu_name", gpu_name},
          {"gpu_uuid", gpu_uuid}};
}

EvaluatorRef EvaluatorRef::from_json(const json& j) {
  Fields f(j, "evaluator");
  EvaluatorRef e;
  e.slot = static_cast<int>(f.integer("slot"));
  if (f.has("gpu_index")) e.gpu_index = static_cast<int>(f.integer("gpu_index"));
  e.gpu_name = f.str("gpu_name");
  e.gpu_uuid = f.str("gpu_uuid");
  return e;
}

std::string Record::verdict_name() const { return verdict ? eval::to_string(verdict->kind) : ""; }

bool Record::correct() const { return kind == Kind::evaluation && verdict && verdict->correct(); }

std::optional<double> Record::speedup() const { return verdict ? verdict->speedup : std::nullopt; }
std::optional<double> Record::ref_time_ms() const { return verdict ? verdict->ref_time_ms : std::nullopt; }
std::optional<double> Claim::speedup_over(const std::string& baseline) const {
  for (const auto& s : speedups)
    if (s.baseline == baseline) return s.speedup;
  if (speedups.empty() && speedup && (baseline_kind == baseline || (baseline_kind.empty() && baseline == "eager")))
    return speedup;
  return std::nullopt;
}

bool Record::claimed_correct() const { return kind == Kind::imported && claim && claim->correct.value_or(false); }

json Record::to_json() const {
  json j = {{"schema", schema}, {"kind", to_string(kind)},
            {"run_id", run_id}, {"session", session},
            {"config", config}, {"provider", provider},
            {"model", model},   {"problem", problem.to_json()},
            {"sample", sample}, {"turn", turn}};
  if (!shard.empty()) j["shard"] = shard;
  if (!candidate_format.empty()) j["candidate_format"] = candidate_format;
  if (lineage) j["lineage"] = lineage->to_json();
  if (kind == Kind::unit_done) {
    j["reason"] = reason;
    j["turns_used"] = turns_used;
    j["best_turn"] = best_turn ? json(*best_turn) : json(nullptr);
    j["recorded_at"] = recorded_at;
    return j;
  }
  if (kind == Kind::imported) {
    const ImportOrigin o = imported.value_or(ImportOrigin{});
    const Claim c = claim.value_or(Claim{});
    j["source"] = source_json(source);
    j["imported"] = {{"run", o.run},    {"level", o.level},   {"problem_number", o.problem_number},
                     {"file", o.file},  {"origin", o.origin}, {"format", o.format},
                     {"kinds", o.kinds}};
    j["claim"] = c.to_json();
    j["warnings"] = warnings;
    j["recorded_at"] = recorded_at;
    return j;
  }
  j["usage"] = usage.to_json();
  j["cost_usd"] = cost_usd;
  if (kind == Kind::provider_failure) {
    const ProviderErrorInfo e = error.value_or(ProviderErrorInfo{});
    j["error"] = {{"kind", e.kind},
                  {"cause", e.cause},
                  {"message", e.message},
                  {"advice", e.advice},
                  {"http_status", e.http_status},
                  {"attempts", e.attempts}};
  } else {
    if (reply)
      j["reply"] = {{"path", reply->path},
                    {"finish_reason", reply->finish_reason},
                    {"model_reported", reply->model_reported},
                    {"attempts", reply->attempts},
                    {"latency_s", reply->latency_s},
                    {"answer_chars", reply->answer_chars},
                    {"reasoning_chars", reply->reasoning_chars}};
    if (kind == Kind::evaluation) j["extraction"] = extraction;
    j["source"] = source_json(source);
    j["verdict"] = verdict ? verdict->to_json() : json();
    if (kind == Kind::evaluation) j["feedback"] = feedback;
    if (evaluator) j["evaluator"] = evaluator->to_json();
  }
  if (environment) j["environment"] = environment->to_json();
  j["started_at"] = started_at;
  if (queue_wait_s) j["queue_wait_s"] = *queue_wait_s;
  j["recorded_at"] = recorded_at;
  return j;
}

Result<Record> Record::from_json(const json& j) {
  if (!j.is_object()) return make_error("corpus.record", "the record is not a JSON object");
  try {
    Fields f(j, "");
    Record r;
    r.schema = f.has("schema") ? static_cast<int>(f.integer("schema")) : kSchema;
    if (r.schema > kSchema)
      return make_error("corpus.schema", "record schema " + std::to_string(r.schema) +
                                             " is newer than this kforge reads (" + std::to_string(kSchema) +
                                             "); use a newer kforge");
    auto kind = parse_kind(f.str("kind", true));
    if (!kind) return make_error("corpus.record", "unknown record kind '" + f.str("kind") + "'");
    r.kind = *kind;
    r.run_id = f.str("run_id");
    r.session = f.has("session") ? static_cast<int>(f.integer("session")) : 1;
    r.shard = f.str("shard");
    r.config = f.str("config", true);
    r.provider = f.str("provider");
    r.model = f.str("model");
    r.candidate_format = f.str("candidate_format");
    Fields p = f.object("problem", true);
    r.problem = {p.str("name", true), p.str("file_hash"), p.str("category"), p.str("path")};
    r.sample = static_cast<int>(f.integer("sample"));
    r.turn = static_cast<int>(f.integer("turn"));
    if (f.has("lineage")) {
      auto lineage = Lineage::from_json(j["lineage"]);
      if (!lineage.ok()) return lineage.error();
      r.lineage = std::move(*lineage);
    }
    if (f.has("usage")) {
      f.object("usage");  // type check
      auto usage = TokenUsage::from_json(j["usage"]);
      if (!usage) throw FieldError(usage.error().message);
      r.usage = std::move(*usage);
    }
    r.cost_usd = f.number("cost_usd");
    if (f.has("reply")) {
      Fields x = f.object("reply");
      r.reply = ReplyRef{x.str("path"),
                         x.str("finish_reason"),
                         x.str("model_reported"),
                         static_cast<int>(x.integer("attempts")),
                         x.number("latency_s"),
                         x.integer("answer_chars"),
                         x.integer("reasoning_chars")};
    }
    r.extraction = f.str("extraction");
    if (f.has("source")) {
      Fields s = f.object("source");
      r.source = SourceRef{s.str("path"), s.str("sha256")};
    }
    if (f.has("verdict")) {
      if (!j["verdict"].is_object()) throw FieldError("verdict is not an object");
      r.verdict = eval::Verdict::from_json(j["verdict"]);
    }
    r.feedback = f.str("feedback");
    if (f.has("environment")) {
      Fields e = f.object("environment");
      r.environment = Environment{e.str("kforge_version"), e.str("backend"), e.str("gpu_name"),
                                  e.str("gpu_arch"),       e.str("torch"),   e.str("cuda")};
    }
    if (f.has("evaluator")) {
      f.object("evaluator");  // type check
      r.evaluator = EvaluatorRef::from_json(j["evaluator"]);
    }
    r.started_at = f.str("started_at");
    r.queue_wait_s = f.opt_number("queue_wait_s");
    r.recorded_at = f.str("recorded_at");
    if (r.kind == Kind::provider_failure && f.has("error")) {
      Fields e = f.object("error");
      r.error = ProviderErrorInfo{e.str("kind"),
                                  e.str("cause"),
                                  e.str("message"),
                                  e.str("advice"),
                                  static_cast<int>(e.integer("http_status")),
                                  static_cast<int>(e.integer("attempts"))};
    }
    if (r.kind == Kind::imported) {
      Fields o = f.object("imported", true);
      ImportOrigin origin;
      origin.run = o.str("run", true);
      origin.level = static_cast<int>(o.integer("level"));
      origin.problem_number = static_cast<int>(o.integer("problem_number"));
      origin.file = o.str("file");
      origin.origin = o.str("origin");
      origin.format = o.str("format");
      origin.kinds = strings(j["imported"], "kinds", "imported.kinds");
      r.imported = std::move(origin);
      Fields c = f.object("claim");
      const json claim_json = j.contains("claim") && j["claim"].is_object() ? j["claim"] : json::object();
      Claim claim;
      claim.compiled = c.boolean("compiled");
      claim.correct = c.boolean("correct");
      claim.runtime_ms = c.opt_number("runtime_ms");
      claim.baseline_ms = c.opt_number("baseline_ms");
      claim.speedup = c.opt_number("speedup");
      claim.hardware = c.str("hardware");
      claim.baseline_file = c.str("baseline_file");
      claim.raw = claim_json.value("raw", json());
      claim.model = c.str("model");
      claim.baseline_kind = c.str("baseline_kind");
      claim.task_quality = c.str("task_quality");
      claim.task_quality_detail = c.str("task_quality_detail");
      if (c.has("speedups")) {
        if (!claim_json["speedups"].is_array()) throw FieldError("claim.speedups is not an array");
        for (const auto& s : claim_json["speedups"]) {
          if (!s.is_object()) throw FieldError("claim.speedups holds an entry that is not an object");
          Fields sf(s, "claim.speedups[]");
          auto value = sf.opt_number("speedup");
          if (!value) throw FieldError("claim.speedups holds an entry without a speedup");
          claim.speedups.push_back({sf.str("baseline", true), *value, sf.opt_number("baseline_ms")});
        }
      }
      if (c.has("reference")) {
        Fields rf = c.object("reference");
        claim.reference =
            ClaimReference{rf.str("path"),    rf.str("sha256"),
                           rf.str("origin"),  rf.boolean("differs"),
                           rf.str("summary"), strings(claim_json["reference"], "changes", "claim.reference.changes")};
      }
      r.claim = std::move(claim);
      if (f.has("warnings")) {
        if (!j["warnings"].is_array()) throw FieldError("warnings is not an array");
        for (const auto& w : j["warnings"])
          if (w.is_string()) r.warnings.push_back(w.get<std::string>());
      }
    }
    r.reason = f.str("reason");
    r.turns_used = static_cast<int>(f.integer("turns_used"));
    if (f.has("best_turn")) r.best_turn = static_cast<int>(f.integer("best_turn"));
    return r;
  } catch (const FieldError& e) {
    return make_error("corpus.record", e.what());
  }
}

std::string utc_now_iso() { return utc_timestamp(UtcFormat::iso_ms); }

}  // namespace kf::corpus
