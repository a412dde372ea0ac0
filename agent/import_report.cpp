#include "agent/import_report.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "agent/claim_check.h"
#include "core/format.h"

namespace kf::agent {
namespace {

using json = nlohmann::json;

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt_json(const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); }

std::string str_field(const json& e, const char* key) {
  return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : "";
}

std::string claimed_text(const corpus::Claim& c) {
  if (!c.compiled && !c.correct) return "no claim";
  if (c.compiled && !*c.compiled) return "not compiled";
  if (!c.correct) return "compiled";
  if (!*c.correct) return "incorrect";
  if (c.speedup) return "correct, " + format_fixed(*c.speedup, 2) + "x";
  if (c.runtime_ms) return "correct, " + format_significant(*c.runtime_ms, 4) + " ms";
  return "correct";
}

std::string kforge_text(const ImportedSolution& s) {
  if (!s.rejudged) return "-";
  std::string t = s.verdict.empty() ? "-" : s.verdict;
  if (s.speedup) t += " " + format_fixed(*s.speedup, 2) + "x";
  if (s.interval) t += " [" + format_fixed(s.interval->low, 2) + ", " + format_fixed(s.interval->high, 2) + "]";
  return t;
}

std::string reason_text(const ImportedSolution& s) {
  std::string t;
  if (!s.hack_class.empty()) t = s.hack_class + (s.reason.empty() ? "" : " (" + s.reason + ")");
  else if (!s.reason.empty()) t = s.reason;
  if (!s.detail.empty()) {
    std::string d = s.detail.size() > 120 ? s.detail.substr(0, 120) + "..." : s.detail;
    std::replace(d.begin(), d.end(), '\n', ' ');
    std::replace(d.begin(), d.end(), '|', '/');  // a markdown cell
    t += (t.empty() ? "" : ": ") + d;
  }
  return t.empty() ? "-" : t;
}

std::string by_class_text(int total, const std::map<std::string, int>& by_class) {
  std::string parts;
  for (const auto& [k, n] : by_class) parts += (parts.empty() ? "" : ", ") + k + " " + std::to_string(n);
  return parts.empty() ? std::to_string(total) : std::to_string(total) + " (" + parts + ")";
}

bool any_folder(const ImportReport& r) {
  return std::any_of(r.runs.begin(), r.runs.end(), [](const ImportedRunSummary& s) { return !s.folder.empty(); });
}

std::string levels_text(const std::vector<int>& levels) {
  std::string t;
  for (int l : levels) t += (t.empty() ? "" : " ") + std::to_string(l);
  return t.empty() ? "-" : t;
}

}  // namespace

int ImportedRunSummary::count(const std::string& status) const {
  auto it = by_status.find(status);
  return it == by_status.end() ? 0 : it->second;
}

int ImportedRunSummary::not_judged() const {
  return count("harness_error") + count("problem_changed") + count("source_missing");
}

void ImportReport::append(ImportReport other) {
  for (auto& r : other.runs) runs.push_back(std::move(r));
  for (auto& s : other.solutions) solutions.push_back(std::move(s));
  for (auto& f : other.reverify_files) reverify_files.push_back(std::move(f));
}

ImportReport summarize_imports(const corpus::Corpus& corpus, const std::optional<ReverifyResults>& reverify,
                               const std::string& folder) {
  ImportReport out;
  std::map<std::string, ImportedRunSummary> runs;
  std::map<std::string, std::set<int>> levels;
  for (const auto& r : corpus.records) {
    if (r.kind != corpus::Kind::imported || !r.imported) continue;
    ImportedSolution s;
    s.folder = folder;
    s.run = r.imported->run;
    s.level = r.imported->level;
    s.problem_number = r.imported->problem_number;
    s.problem = r.problem.name;
    s.sample = r.sample;
    s.version = r.turn;
    s.claim = r.claim.value_or(corpus::Claim{});
    if (const json* e = reverify ? reverify->entry_of(r) : nullptr) {
      s.rejudged = true;
      s.status = str_field(*e, "status");
      s.reason = str_field(*e, "reason");
      s.hack_class = str_field(*e, "hack_class");
      s.detail = str_field(*e, "detail");
      if (e->contains("verdict") && (*e)["verdict"].is_object()) {
        s.verdict = str_field((*e)["verdict"], "verdict");
        if (auto f = speedup_figure((*e)["verdict"])) {
          s.speedup = f->value;
          s.interval = f->interval;
        }
      }
    }
    auto& run = runs[s.run];
    run.folder = folder;
    run.run = s.run;
    levels[s.run].insert(s.level);
    ++run.solutions;
    if (s.claim.compiled.value_or(false)) ++run.claimed_compiled;
    if (s.claim.correct.value_or(false)) ++run.claimed_correct;
    if (s.claim.correct.value_or(false) && s.claim.speedup && *s.claim.speedup > 1.0) ++run.claimed_faster;
    if (s.rejudged) {
      ++run.rejudged;
      ++run.by_status[s.status];
      if (s.status == "rejected") ++run.rejected_by_class[s.hack_class.empty() ? "other" : s.hack_class];
    }
    out.solutions.push_back(std::move(s));
  }
  for (auto& [name, run] : runs) {
    run.levels.assign(levels[name].begin(), levels[name].end());
    out.runs.push_back(std::move(run));
  }
  std::stable_sort(out.solutions.begin(), out.solutions.end(), [](const ImportedSolution& a, const ImportedSolution& b) {
    return std::tie(a.run, a.level, a.problem_number, a.sample, a.version) <
           std::tie(b.run, b.level, b.problem_number, b.sample, b.version);
  });
  if (reverify && !out.solutions.empty()) out.reverify_files.push_back(reverify->origin());
  return out;
}

std::vector<ReportTable> import_tables(const ImportReport& r) {
  const bool folders = any_folder(r);
  ReportTable runs;
  runs.heading = "Imported runs: claims and re-verification";
  if (folders) runs.header.push_back("folder");
  for (const char* h :
       {"run", "level", "solutions", "claimed compiled", "claimed correct", "claimed faster", "re-verified", "holds",
        "not reproduced", "now correct", "now incorrect", "rejected (by hack class)", "fails", "not judged"})
    runs.header.push_back(h);
  for (const auto& s : r.runs) {
    std::vector<std::string> row;
    if (folders) row.push_back(s.folder);
    for (const std::string& cell :
         {s.run, levels_text(s.levels), std::to_string(s.solutions), std::to_string(s.claimed_compiled),
          std::to_string(s.claimed_correct), std::to_string(s.claimed_faster), std::to_string(s.rejudged),
          std::to_string(s.count("holds")), std::to_string(s.count("not_reproduced")),
          std::to_string(s.count("now_correct")), std::to_string(s.count("now_incorrect")),
          by_class_text(s.count("rejected"), s.rejected_by_class), std::to_string(s.count("fails")),
          std::to_string(s.not_judged())})
      row.push_back(cell);
    runs.rows.push_back(std::move(row));
  }
  ReportTable solutions;
  solutions.heading = "Imported solutions";
  if (folders) solutions.header.push_back("folder");
  for (const char* h : {"run", "level", "problem", "sample", "claimed", "kforge", "status", "reason"})
    solutions.header.push_back(h);
  for (const auto& s : r.solutions) {
    std::vector<std::string> row;
    if (folders) row.push_back(s.folder);
    for (const std::string& cell :
         {s.run, std::to_string(s.level), s.problem,
          std::to_string(s.sample) + (s.version > 1 ? " (v" + std::to_string(s.version) + ")" : ""),
          claimed_text(s.claim), kforge_text(s), s.rejudged ? s.status : "not re-verified", reason_text(s)})
      row.push_back(cell);
    solutions.rows.push_back(std::move(row));
  }
  return {runs, solutions};
}

std::vector<std::string> import_notes(const ImportReport& r) {
  std::vector<std::string> notes = {
      "Claims are the source run's own (eval_results.json; speedup = baseline mean / runtime). `kforge reverify` "
      "re-judges them: holds (correct, and the claimed speedup is supported: within kforge's measured interval or "
      "on the same side of 1.0), not reproduced (correct, speedup not supported), now incorrect, rejected (a reward "
      "hack, by class), fails (does not build or run), not judged (kforge could not judge it, or the problem or "
      "source changed since the import)."};
  for (const auto& f : r.reverify_files) notes.push_back("Reverify results applied: " + f + ".");
  if (r.reverify_files.empty()) notes.push_back("No reverify results found (run `kforge reverify DIR` to add them).");
  return notes;
}

json import_json(const ImportReport& r) {
  json runs = json::array();
  for (const auto& s : r.runs) {
    json j = {{"run", s.run},
              {"levels", s.levels},
              {"solutions", s.solutions},
              {"claimed_compiled", s.claimed_compiled},
              {"claimed_correct", s.claimed_correct},
              {"claimed_faster", s.claimed_faster},
              {"reverified", s.rejudged},
              {"rejected_by_class", s.rejected_by_class}};
    for (const auto& st : claim_statuses()) j[st] = s.count(st);
    j["not_judged"] = s.not_judged();
    if (!s.folder.empty()) j["folder"] = s.folder;
    runs.push_back(std::move(j));
  }
  json solutions = json::array();
  for (const auto& s : r.solutions) {
    json j = {{"run", s.run},
              {"level", s.level},
              {"problem_number", s.problem_number},
              {"problem", s.problem},
              {"sample", s.sample},
              {"version", s.version},
              {"claimed",
               {{"compiled", opt_json(s.claim.compiled)},
                {"correct", opt_json(s.claim.correct)},
                {"runtime_ms", opt_json(s.claim.runtime_ms)},
                {"baseline_ms", opt_json(s.claim.baseline_ms)},
                {"speedup", opt_json(s.claim.speedup)},
                {"hardware", s.claim.hardware}}},
              {"reverified", s.rejudged},
              {"status", s.rejudged ? json(s.status) : json(nullptr)},
              {"verdict", s.verdict.empty() ? json(nullptr) : json(s.verdict)},
              {"speedup", opt_json(s.speedup)},
              {"interval", s.interval ? json::array({s.interval->low, s.interval->high}) : json(nullptr)},
              {"reason", s.reason},
              {"hack_class", s.hack_class},
              {"detail", s.detail}};
    if (!s.folder.empty()) j["folder"] = s.folder;
    solutions.push_back(std::move(j));
  }
  return {{"runs", runs}, {"solutions", solutions}, {"reverify_files", r.reverify_files}};
}

std::string import_csv(const ImportReport& r) {
  std::ostringstream o;
  o << "folder,run,levels,solutions,claimed_compiled,claimed_correct,claimed_faster,reverified";
  for (const auto& st : claim_statuses())
    if (st != "harness_error") o << "," << st;
  for (const auto& c : known_hack_classes()) o << ",rejected:" << c;
  o << ",rejected:other,not_judged\n";
  for (const auto& s : r.runs) {
    o << csv_field(s.folder) << "," << csv_field(s.run) << "," << levels_text(s.levels) << "," << s.solutions << ","
      << s.claimed_compiled << "," << s.claimed_correct << "," << s.claimed_faster << "," << s.rejudged;
    for (const auto& st : claim_statuses())
      if (st != "harness_error") o << "," << s.count(st);
    int known = 0;
    for (const auto& c : known_hack_classes()) {
      auto it = s.rejected_by_class.find(c);
      const int n = it == s.rejected_by_class.end() ? 0 : it->second;
      known += n;
      o << "," << n;
    }
    o << "," << (s.count("rejected") - known) << "," << s.not_judged() << "\n";
  }
  return o.str();
}

std::string format_with_imports(const std::vector<ConfigSummary>& ss, const ImportReport& imports,
                                ReportFormat format, const std::string& title) {
  const bool campaign = !ss.empty() || imports.empty();
  if (imports.empty()) return format_report(ss, format, title);
  switch (format) {
    case ReportFormat::json: {
      json configs = json::array();
      for (const auto& s : ss) configs.push_back(s.to_json());
      return json{{"title", title}, {"configurations", configs}, {"imported", import_json(imports)}}.dump(2) + "\n";
    }
    case ReportFormat::csv:
      return campaign ? format_report(ss, format, title) + "\n" + import_csv(imports) : import_csv(imports);
    case ReportFormat::md: {
      std::string out = campaign ? format_report(ss, format, title) + "\n" : "# " + title + "\n\n";
      auto tables = import_tables(imports);
      out += markdown_table(tables.front()) + "\n";
      for (const auto& note : import_notes(imports)) out += note + "\n";
      for (size_t i = 1; i < tables.size(); ++i) out += "\n" + markdown_table(tables[i]);
      return out;
    }
  }
  return "";
}

}  // namespace kf::agent
