#include "agent/campaign/status.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "agent/campaign/manifest.h"
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
  void add(const corpus::RecordSummary& r) {
    using corpus::Kind;
    if (r.kind == Kind::unit_done) done.insert(r.key);
    if (r.correct) correct.insert(r.key);
    if (r.kind == Kind::evaluation) ++evaluations;
    if (r.kind == Kind::provider_failure) ++provider_failures;
    if (r.kind == Kind::harness_failure) ++harness_failures;
    if (r.kind == Kind::imported) ++imported;
    if (r.claimed_correct) ++imported_claimed_correct;
    cost += r.cost_usd;
    tokens += r.tokens;
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
  auto manifest = RunManifest::read(dir);
  if (!manifest)
    return make_error("status.manifest",
                      "'" + dir + "' holds no readable run.json: pass a folder `kforge run --out` wrote");
  // The campaign's units, from the manifest (every configuration and problem any session added).
  std::vector<corpus::UnitKey> units;
  for (const auto& [config, samples] : manifest->config_samples)
    for (const auto& problem : manifest->problems)
      for (int s = 0; s < samples; ++s) units.push_back({config, problem, s});

  // Streamed file by file; what is kept grows with units (and their turns), not with records.
  std::map<std::string, Tally> per_file;
  Tally total;
  // Records that must be unique, per unit: unit_done, and evaluation / imported per turn -> count.
  struct Seen {
    int done = 0;
    std::map<std::pair<int, int>, int> turns;  // (kind, turn) -> count
  };
  std::map<corpus::UnitKey, Seen> seen;
  corpus::ReadDamage damage;
  for (const auto& name : corpus::corpus_files(dir)) {
    auto& t = per_file[name];
    auto st = corpus::for_each_summary_in_file(
        (fs::path(dir) / name).string(),
        [&](const corpus::RecordSummary& r, std::string_view) {
          t.add(r);
          total.add(r);
          if (r.kind == corpus::Kind::unit_done)
            ++seen[r.key].done;
          else if (r.kind == corpus::Kind::evaluation || r.kind == corpus::Kind::imported)
            ++seen[r.key].turns[{static_cast<int>(r.kind), r.turn}];
        },
        damage);
    if (!st) return st.error();
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
  for (const auto& [key, s] : seen) {
    if (s.done > 1)
      duplicates.push_back("unit_done " + key.file_stem() + " recorded " + std::to_string(s.done) + " times");
    for (const auto& [kind_turn, n] : s.turns)
      if (n > 1)
        duplicates.push_back(corpus::to_string(static_cast<corpus::Kind>(kind_turn.first)) + " " + key.file_stem() +
                             " turn " + std::to_string(kind_turn.second) + " recorded " + std::to_string(n) + " times");
  }
  nlohmann::json unreadable = nlohmann::json::array();
  for (const auto& d : damage.first) unreadable.push_back({{"file", d.file}, {"line", d.line}, {"reason", d.reason}});
  return nlohmann::json{{"run_id", manifest->run_id},
                        {"dir", dir},
                        {"shards", shards},
                        {"total", total.to_json(static_cast<int>(units.size()))},
                        {"duplicates", duplicates},
                        {"unreadable_lines", damage.lines},
                        {"unreadable_first", unreadable},
                        {"torn_tails", damage.torn_tails}};
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
  if (s["duplicates"].empty())
    o << "\nNo unit or evaluation recorded twice.\n";
  else {
    o << "\nRecorded more than once:\n";
    for (const auto& d : s["duplicates"]) o << "- " << d.get<std::string>() << "\n";
  }
  if (const int64_t n = s.value("unreadable_lines", int64_t{0}); n > 0) {
    o << "\n"
      << n << " unreadable line" << (n == 1 ? "" : "s") << " (skipped by every reader; the first "
      << s["unreadable_first"].size() << "):\n";
    for (const auto& d : s["unreadable_first"])
      o << "- " << d.value("file", "") << " line " << d.value("line", 0) << ": " << d.value("reason", "") << "\n";
  }
  if (const int torn = s.value("torn_tails", 0); torn > 0)
    o << "\n"
      << torn << " corpus file" << (torn == 1 ? " ends" : "s end")
      << " with a torn record (an interrupted write, or a run appending now); the next `kforge run` on the "
         "folder cuts it off and keeps its bytes in torn/.\n";
  return o.str();
}

}  // namespace kf::agent
