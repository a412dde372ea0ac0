#include "agent/status.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/files.h"
#include "core/format.h"
#include "corpus/reader.h"
#include "corpus/shard.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

struct Tally {
  std::set<corpus::UnitKey> done, correct;
  int evaluations = 0, provider_failures = 0, harness_failures = 0;
  int imported = 0, imported_claimed_correct = 0;  // `kforge import` records
  double cost = 0;
  int64_t tokens = 0;
  std::string last;
  void add(const corpus::Record& r) {
    using corpus::Kind;
    if (r.kind == Kind::unit_done) done.insert(r.key());
    if (r.correct()) correct.insert(r.key());
    if (r.kind == Kind::evaluation) ++evaluations;
    if (r.kind == Kind::provider_failure) ++provider_failures;
    if (r.kind == Kind::harness_failure) ++harness_failures;
    if (r.kind == Kind::imported) ++imported;
    if (r.claimed_correct()) ++imported_claimed_correct;
    cost += r.cost_usd;
    tokens += r.usage.total();
    if (r.recorded_at > last) last = r.recorded_at;
  }
  nlohmann::json to_json(std::optional<int> units) const {
    int units_correct = 0;
    for (const auto& k : correct) units_correct += done.count(k) ? 1 : 0;
    return {{"units", units ? nlohmann::json(*units) : nlohmann::json(nullptr)},
            {"units_done", done.size()},
            {"units_correct", units_correct},
            {"evaluations", evaluations},
            {"provider_failures", provider_failures},
            {"harness_failures", harness_failures},
            {"imported", imported},
            {"imported_claimed_correct", imported_claimed_correct},
            {"cost_usd", cost},
            {"tokens", tokens},
            {"last_record_at", last}};
  }
};

}  // namespace

Result<nlohmann::json> run_status(const std::string& dir) {
  auto text = read_file((fs::path(dir) / "run.json").string());
  auto manifest = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!manifest.is_object())
    return make_error("status.manifest",
                      "'" + dir + "' holds no readable run.json: pass a folder `kforge run --out` wrote");
  // The campaign's units, from the manifest (every configuration and problem any session added).
  std::vector<corpus::UnitKey> units;
  const nlohmann::json inputs = manifest.value("inputs", nlohmann::json::object());
  const nlohmann::json configs = inputs.value("configs", nlohmann::json::object());
  const nlohmann::json problems = inputs.value("problems", nlohmann::json::object());
  for (auto c = configs.begin(); c != configs.end(); ++c)
    for (auto p = problems.begin(); p != problems.end(); ++p)
      for (int s = 0; s < c->value("samples", 1); ++s) units.push_back({c.key(), p.key(), s});

  std::map<std::string, Tally> per_file;
  Tally total;
  std::map<std::string, int> seen;  // identity of a record that must be unique -> count
  for (const auto& name : corpus::corpus_files(dir)) {
    corpus::Corpus one;
    auto content = read_file((fs::path(dir) / name).string());
    if (!content) return content.error();
    corpus::parse_text(*content, name, one);
    auto& t = per_file[name];
    for (const auto& r : one.records) {
      t.add(r);
      total.add(r);
      if (r.kind == corpus::Kind::unit_done || r.kind == corpus::Kind::evaluation ||
          r.kind == corpus::Kind::imported)
        ++seen[corpus::to_string(r.kind) + " " + r.key().file_stem() +
               (r.kind != corpus::Kind::unit_done ? " turn " + std::to_string(r.turn) : "")];
    }
  }
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& [name, t] : per_file) {
    std::optional<int> share;
    auto shard = corpus::Shard::of_file(name);
    if (shard) {
      int n = 0;
      for (const auto& u : units) n += shard->owns(u) ? 1 : 0;
      share = n;
    } else if (per_file.size() == 1) {
      share = static_cast<int>(units.size());
    }
    auto j = t.to_json(share);
    j["file"] = name;
    j["shard"] = shard ? shard->text() : "";
    shards.push_back(j);
  }
  nlohmann::json duplicates = nlohmann::json::array();
  for (const auto& [what, n] : seen)
    if (n > 1) duplicates.push_back(what + " recorded " + std::to_string(n) + " times");
  return nlohmann::json{{"run_id", manifest.value("run_id", "")},
                        {"dir", dir},
                        {"shards", shards},
                        {"total", total.to_json(static_cast<int>(units.size()))},
                        {"duplicates", duplicates}};
}

std::string format_status(const nlohmann::json& s) {
  std::ostringstream o;
  o << "# kforge status: " << s.value("dir", "") << " (" << s.value("run_id", "") << ")\n\n";
  o << "| corpus file | shard | units done | correct | evaluations | provider failures | harness failures | cost | "
       "last record |\n|---|---|---|---|---|---|---|---|---|\n";
  auto row = [&](const std::string& file, const std::string& shard, const nlohmann::json& t) {
    std::string units = t["units"].is_number() ? std::to_string(t["units"].get<int>()) : "?";
    o << "| " << file << " | " << (shard.empty() ? "-" : shard) << " | " << t["units_done"].get<int>() << "/" << units
      << " | " << t["units_correct"].get<int>() << " | " << t["evaluations"].get<int>() << " | "
      << t["provider_failures"].get<int>() << " | " << t["harness_failures"].get<int>() << " | $"
      << format_fixed(t["cost_usd"].get<double>(), 4) << " | " << t.value("last_record_at", "") << " |\n";
  };
  for (const auto& sh : s["shards"]) row(sh.value("file", ""), sh.value("shard", ""), sh);
  row("**total**", "", s["total"]);
  if (const int n = s["total"].value("imported", 0); n > 0)
    o << "\n"
      << n << " imported solutions (" << s["total"].value("imported_claimed_correct", 0)
      << " claimed correct by their runs): `kforge report " << s.value("dir", "")
      << "` shows claims and re-verification.\n";
  if (s["duplicates"].empty()) o << "\nNo unit or evaluation recorded twice.\n";
  else {
    o << "\nRecorded more than once:\n";
    for (const auto& d : s["duplicates"]) o << "- " << d.get<std::string>() << "\n";
  }
  return o.str();
}

}  // namespace kf::agent
