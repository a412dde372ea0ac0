#include "agent/reverify_rule.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

std::optional<double> timing_figure(const nlohmann::json& checks, const char* who, const char* figure) {
  if (!checks.contains("timing") || !checks["timing"].is_object()) return std::nullopt;
  const auto& t = checks["timing"];
  if (!t.contains(who) || !t[who].is_object()) return std::nullopt;
  const auto& x = t[who];
  if (!x.contains(figure) || !x[figure].is_number()) return std::nullopt;
  double v = x[figure].get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

const nlohmann::json* string_field(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? &j[key] : nullptr;
}

}  // namespace

std::optional<SpeedupInterval> speedup_interval(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("checks") || !v["checks"].is_object()) return std::nullopt;
  const auto& c = v["checks"];
  // "candidate": the trusted rounds' timing (issue 11); "candidate_events": corpora written before it.
  const bool trusted = c.contains("timing") && c["timing"].is_object() && c["timing"].contains("candidate");
  const char* key = trusted ? "candidate" : "candidate_events";
  auto c10 = timing_figure(c, key, "p10_ms"), c90 = timing_figure(c, key, "p90_ms");
  // The primary baseline's timing: eager's is checks.timing.baseline, torch.compile's baseline_compile.
  const bool compile = v.contains("baseline") && v["baseline"].is_string() && v["baseline"] == "compile";
  const char* base = compile ? "baseline_compile" : "baseline";
  auto b10 = timing_figure(c, base, "p10_ms"), b90 = timing_figure(c, base, "p90_ms");
  if (!c10 || !c90 || !b10 || !b90 || *c10 <= 0 || *c90 <= 0 || *b10 <= 0 || *b90 <= 0) return std::nullopt;
  const SpeedupInterval i{*b10 / *c90, *b90 / *c10};
  if (!std::isfinite(i.low) || !std::isfinite(i.high)) return std::nullopt;
  return i;
}

namespace {

// Which side of 1.0 a range lies on entirely: +1 above, -1 below, 0 neither.
int side_of_one(const SpeedupInterval& r) { return r.low > 1.0 ? 1 : r.high < 1.0 ? -1 : 0; }

}  // namespace

bool speedup_supported(const SpeedupFigure& claimed, const SpeedupFigure& measured) {
  const SpeedupInterval c = claimed.interval.value_or(SpeedupInterval{claimed.value, claimed.value});
  const SpeedupInterval m = measured.interval.value_or(SpeedupInterval{measured.value, measured.value});
  if (side_of_one(c) != 0 && side_of_one(c) == side_of_one(m)) return true;
  if (measured.interval) return c.low <= m.high && m.low <= c.high;
  return std::fabs(claimed.value - measured.value) <= 0.1 * std::max(claimed.value, measured.value);
}

std::optional<SpeedupFigure> speedup_figure(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("speedup") || !v["speedup"].is_number()) return std::nullopt;
  const double s = v["speedup"].get<double>();
  if (!std::isfinite(s)) return std::nullopt;
  return SpeedupFigure{s, speedup_interval(v)};
}

std::string reverify_status(const nlohmann::json& claimed, const nlohmann::json& now) {
  if (!now.value("correct", false)) return "now_incorrect";
  auto c = speedup_figure(claimed), n = speedup_figure(now);
  if (!c || !n) return "holds";  // correctness re-verified; no timing to compare
  return speedup_supported(*c, *n) ? "holds" : "not_reproduced";
}

Result<std::optional<ReverifyResults>> ReverifyResults::load(const std::string& dir) {
  const std::string file = (fs::path(dir) / kReverifyFile).string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<ReverifyResults>();
  auto text = read_file(file);
  if (!text) return text.error();
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return make_error("reverify.unreadable", file + " is not valid JSON: rerun `kforge reverify " + dir +
                                                 "` or remove the file");
  auto parsed = parse(doc, file);
  if (!parsed) return parsed.error();
  return std::optional<ReverifyResults>(std::move(*parsed));
}

Result<ReverifyResults> ReverifyResults::parse(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("kernels") || !doc["kernels"].is_array())
    return make_error("reverify.unreadable",
                      origin + " has no \"kernels\" array: it was not written by `kforge reverify`");
  ReverifyResults out;
  out.origin_ = origin;
  out.seed_ = doc.value("seed", nlohmann::json());
  for (const auto& k : doc["kernels"]) {
    if (!k.is_object() || !string_field(k, "config") || !string_field(k, "status") || !k.contains("problem") ||
        !k["problem"].is_object() || !string_field(k["problem"], "name") || !k.contains("sample") ||
        !k["sample"].is_number_integer() || !k.contains("turn") || !k["turn"].is_number_integer())
      continue;
    Key key{k["config"].get<std::string>(), k["problem"]["name"].get<std::string>(), k["sample"].get<int>(),
            k["turn"].get<int>()};
    out.entries_[key] = Entry{k["problem"].value("file_hash", ""), k};
  }
  return out;
}

const nlohmann::json* ReverifyResults::entry_of(const corpus::Record& r) const {
  auto it = entries_.find({r.config, r.problem.name, r.sample, r.turn});
  if (it == entries_.end()) return nullptr;
  const std::string& hash = r.problem.file_hash;
  if (!it->second.file_hash.empty() && !hash.empty() && it->second.file_hash != hash) return nullptr;
  return &it->second.entry;
}

std::optional<std::string> ReverifyResults::status_of(const corpus::Record& r) const {
  const nlohmann::json* e = entry_of(r);
  if (!e) return std::nullopt;
  return (*e)["status"].get<std::string>();
}

const char* to_string(SpeedupCheck c) {
  switch (c) {
    case SpeedupCheck::not_faster: return "not_faster";
    case SpeedupCheck::inputs_repeated: return "inputs_repeated";
    case SpeedupCheck::no_spread: return "no_spread";
    case SpeedupCheck::within_spread: return "within_spread";
    case SpeedupCheck::not_held: return "not_held";
    case SpeedupCheck::in_process: return "in_process_attribution";
    case SpeedupCheck::verified: return "verified";
  }
  return "not_faster";
}

// A KernelBench solution whose kernels' share of the work only its own process reported (checks.attribution).
static bool in_process_attribution(const nlohmann::json& verdict) {
  if (!verdict.is_object()) return false;
  auto checks = verdict.find("checks");
  if (checks == verdict.end() || !checks->is_object()) return false;
  auto a = checks->find("attribution");
  return a != checks->end() && a->is_string() && a->get<std::string>() == "in_process";
}

Result<VerifiedSpeedupRule> VerifiedSpeedupRule::for_folder(const std::string& dir) {
  auto results = ReverifyResults::load(dir);
  if (!results) return results.error();
  return VerifiedSpeedupRule(std::move(*results));
}

namespace {
// checks.timing.inputs_repeated, read by type: a verdict in a corpus may be an imported or an old one.
bool inputs_repeated(const nlohmann::json& verdict) {
  if (!verdict.is_object()) return false;
  auto c = verdict.find("checks");
  if (c == verdict.end() || !c->is_object()) return false;
  auto t = c->find("timing");
  if (t == c->end() || !t->is_object()) return false;
  auto r = t->find("inputs_repeated");
  return r != t->end() && r->is_boolean() && r->get<bool>();
}
}  // namespace

SpeedupJudgement VerifiedSpeedupRule::judge_verdict(const nlohmann::json& verdict,
                                                    const std::optional<std::string>& status) {
  SpeedupJudgement j;
  j.interval = speedup_interval(verdict);
  j.reverify_status = status;
  const bool correct = verdict.is_object() && verdict.value("correct", false);
  const auto sp = verdict.is_object() && verdict.contains("speedup") && verdict["speedup"].is_number()
                      ? std::optional<double>(verdict["speedup"].get<double>())
                      : std::nullopt;
  const bool faster = sp && *sp > 1.0;
  if (!correct || !faster) j.check = SpeedupCheck::not_faster;
  else if (inputs_repeated(verdict)) j.check = SpeedupCheck::inputs_repeated;
  else if (!j.interval) j.check = SpeedupCheck::no_spread;
  else if (!(j.interval->low > 1.0)) j.check = SpeedupCheck::within_spread;
  else if (status && *status != "holds") j.check = SpeedupCheck::not_held;
  else if (in_process_attribution(verdict)) j.check = SpeedupCheck::in_process;
  else j.check = SpeedupCheck::verified;
  return j;
}

SpeedupJudgement VerifiedSpeedupRule::judge(const corpus::Record& record) const {
  return judge_verdict(record.verdict, reverify_ ? reverify_->status_of(record) : std::nullopt);
}

}  // namespace kf::agent
