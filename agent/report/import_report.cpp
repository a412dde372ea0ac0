// The imported solutions' report: one summary (summarize_imports) and its four forms (md tables and notes,
// json, csv, the md report with imports). Over 450 lines on purpose: the forms state the same figures and are
// kept beside the summary they render, so that a column added to one is seen missing from the others.
#include "agent/report/import_report.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "agent/claims/baseline_kind.h"
#include "agent/claims/claim_check.h"
#include "agent/claims/solution_kinds.h"
#include "core/format.h"

namespace kf::agent {
namespace {

using json = nlohmann::json;

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

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
  if (!s.hack_class.empty())
    t = s.hack_class + (s.reason.empty() ? "" : " (" + s.reason + ")");
  else if (!s.reason.empty())
    t = s.reason;
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

std::string marks_text(const ImportedSolution& s) {
  std::vector<std::string> m;
  if (s.claim.reference && s.claim.reference->differs.value_or(false))
    m.push_back("reference_differs" +
                (s.claimed_reference_status.empty() ? "" : " (own reference: " + s.claimed_reference_status + ")"));
  if (s.hardware_differs) m.push_back("hardware_differs");
  if (s.partial) m.push_back("partial replacement");
  if (!s.claim.task_quality.empty()) m.push_back(s.claim.task_quality + " problem");
  if (!s.kinds.empty() && std::find(s.kinds.begin(), s.kinds.end(), "no_own_kernel") != s.kinds.end())
    m.push_back("no own kernel");
  std::string t;
  for (const auto& x : m) t += (t.empty() ? "" : ", ") + x;
  return t.empty() ? "-" : t;
}

std::string speedup_range(std::vector<double> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  const double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return format_significant(median, 3) + "x (" + format_significant(v.front(), 3) + "x-" +
         format_significant(v.back(), 3) + "x)";
}

std::string md_cell(std::string t) {
  std::replace(t.begin(), t.end(), '\n', ' ');
  std::replace(t.begin(), t.end(), '|', '/');
  return t;
}

ReportTable baseline_table(const ImportReport& r) {
  ReportTable t;
  t.heading = "Imported claims by baseline kind and hardware";
  t.header = {"baseline",
              "hardware (as stated)",
              "runs",
              "claimed speedups",
              "claimed faster (> 1.0)",
              "median (range)",
              "re-verified",
              "holds",
              "hardware_differs",
              "reference_differs",
              "on degenerate problems"};
  struct Row {
    std::set<std::string> runs;
    std::vector<double> speedups;
    int faster = 0, rejudged = 0, holds = 0, hw = 0, ref = 0, degenerate = 0;
  };
  std::map<std::pair<size_t, std::string>, Row> rows;  // (baseline order, hardware)
  const auto& kinds = baseline_kinds();
  for (const auto& s : r.solutions) {
    if (!s.claim.correct.value_or(false)) continue;
    std::vector<corpus::ClaimedSpeedup> claimed = s.claim.speedups;
    if (claimed.empty() && s.claim.speedup)
      claimed.push_back({s.claim.baseline_kind.empty() ? "eager" : s.claim.baseline_kind, *s.claim.speedup, {}});
    for (const auto& c : claimed) {
      const size_t order = static_cast<size_t>(std::find(kinds.begin(), kinds.end(), c.baseline) - kinds.begin());
      Row& row = rows[{order, s.claim.hardware.empty() ? "-" : s.claim.hardware}];
      row.runs.insert(s.run);
      row.speedups.push_back(c.speedup);
      if (c.speedup > 1.0) ++row.faster;
      // kforge re-verifies against the eager baseline: its status speaks for eager claims only.
      if (s.rejudged && c.baseline == "eager") {
        ++row.rejudged;
        if (s.status == "holds") ++row.holds;
        if (s.hardware_differs) ++row.hw;
      }
      if (s.claim.reference && s.claim.reference->differs.value_or(false)) ++row.ref;
      if (s.claim.task_quality == "degenerate") ++row.degenerate;
    }
  }
  for (const auto& [key, row] : rows) {
    const std::string kind = key.first < kinds.size() ? kinds[key.first] : "other";
    const bool eager = kind == "eager";
    t.rows.push_back({baseline_label(kind), key.second, std::to_string(row.runs.size()),
                      std::to_string(row.speedups.size()), std::to_string(row.faster), speedup_range(row.speedups),
                      eager ? std::to_string(row.rejudged) : "not measured by kforge",
                      eager ? std::to_string(row.holds) : "-", eager ? std::to_string(row.hw) : "-",
                      std::to_string(row.ref), std::to_string(row.degenerate)});
  }
  return t;
}

ReportTable kinds_table(const ImportReport& r, bool folders) {
  ReportTable t;
  t.heading = "What the imported solutions are (static, from their text)";
  if (folders) t.header.push_back("folder");
  for (const char* h : {"run", "format", "model", "hardware (as stated)", "solutions"}) t.header.push_back(h);
  for (const auto& k : solution_kinds()) t.header.push_back(solution_kind_label(k));
  for (const auto& s : r.runs) {
    std::vector<std::string> row;
    if (folders) row.push_back(s.folder);
    for (const std::string& c :
         {s.run, s.format.empty() ? "kernelbench-run" : s.format, s.model.empty() ? "-" : s.model,
          s.hardware.empty() ? "-" : s.hardware, std::to_string(s.solutions)})
      row.push_back(c);
    for (const auto& k : solution_kinds()) {
      auto it = s.kinds.find(k);
      row.push_back(std::to_string(it == s.kinds.end() ? 0 : it->second));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

ReportTable drift_table(const ImportReport& r) {
  ReportTable t;
  t.heading = "Reference drift: claims made against a reference other than the dataset's problem";
  t.header = {"level",
              "problem",
              "changed",
              "runs",
              "claimed speedups (eager)",
              "against the dataset's problem",
              "against its own reference",
              "what differs (claimed reference -> dataset)"};
  struct Row {
    std::set<std::string> runs;
    std::vector<double> speedups;
    std::map<std::string, int> now, then;
    std::string summary, changes;
  };
  std::map<std::tuple<int, int, std::string>, Row> rows;  // by level, problem number, name
  for (const auto& s : r.solutions) {
    if (!s.claim.reference || !s.claim.reference->differs.value_or(false)) continue;
    Row& row = rows[{s.level, s.problem_number, s.problem}];
    row.runs.insert(s.run);
    if (auto x = s.claim.speedup_over("eager")) row.speedups.push_back(*x);
    if (s.rejudged) ++row.now[s.status];
    if (!s.claimed_reference_status.empty()) ++row.then[s.claimed_reference_status];
    row.summary = s.claim.reference->summary;
    row.changes.clear();
    for (const auto& c : s.claim.reference->changes) row.changes += (row.changes.empty() ? "" : ", ") + c;
  }
  auto counts = [](const std::map<std::string, int>& m) {
    std::string out;
    for (const auto& [k, n] : m) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(n);
    return out.empty() ? std::string("not re-verified") : out;
  };
  for (const auto& [key, row] : rows) {
    std::string runs;
    for (const auto& n : row.runs) runs += (runs.empty() ? "" : ", ") + n;
    t.rows.push_back({std::to_string(std::get<0>(key)), std::get<2>(key), row.changes.empty() ? "-" : row.changes, runs,
                      speedup_range(row.speedups), counts(row.now), counts(row.then), md_cell(row.summary)});
  }
  return t;
}

ReportTable quality_table(const ImportReport& r) {
  ReportTable t;
  t.heading = "Claimed speedups on degenerate or fooled problems (kforge audit)";
  t.header = {"run", "level", "problem", "claimed", "task quality", "status"};
  for (const auto& s : r.solutions) {
    if (s.claim.task_quality.empty() || !s.claim.correct.value_or(false)) continue;
    t.rows.push_back({s.run, std::to_string(s.level), s.problem, claimed_text(s.claim),
                      s.claim.task_quality_detail.empty() ? s.claim.task_quality : md_cell(s.claim.task_quality_detail),
                      s.rejudged ? s.status : "not re-verified"});
  }
  return t;
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
    s.format = r.imported->format;
    s.kinds = r.imported->kinds;
    if (const ReverifyEntry* e = reverify ? reverify->entry_of(r) : nullptr) {
      s.rejudged = true;
      s.status = e->status;
      s.reason = e->reason;
      s.hack_class = e->hack_class;
      s.detail = e->detail;
      s.hardware_differs = e->hardware_differs;
      if (e->claimed_reference) s.claimed_reference_status = e->claimed_reference->status;
      if (e->verdict) {
        s.verdict = eval::to_string(e->verdict->kind);
        s.partial = partial_replacement(*e->verdict);
        if (auto f = speedup_figure(*e->verdict)) {
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
    if (run.format.empty()) run.format = s.format;
    if (run.model.empty()) run.model = s.claim.model;
    if (run.hardware.empty()) run.hardware = s.claim.hardware;
    for (const auto& k : s.kinds) ++run.kinds[k];
    if (s.claim.reference && s.claim.reference->differs.value_or(false)) ++run.reference_differs;
    if (s.claim.task_quality == "degenerate") ++run.on_degenerate;
    if (s.claim.task_quality == "fooled") ++run.on_fooled;
    if (s.claim.compiled.value_or(false)) ++run.claimed_compiled;
    if (s.claim.correct.value_or(false)) ++run.claimed_correct;
    if (s.claim.correct.value_or(false) && s.claim.speedup && *s.claim.speedup > 1.0) ++run.claimed_faster;
    if (s.rejudged) {
      ++run.rejudged;
      ++run.by_status[s.status];
      if (s.status == "holds" && s.partial) ++run.holds_partial;
      if (s.status == "rejected") ++run.rejected_by_class[s.hack_class.empty() ? "other" : s.hack_class];
    }
    out.solutions.push_back(std::move(s));
  }
  for (auto& [name, run] : runs) {
    run.levels.assign(levels[name].begin(), levels[name].end());
    out.runs.push_back(std::move(run));
  }
  std::stable_sort(out.solutions.begin(), out.solutions.end(),
                   [](const ImportedSolution& a, const ImportedSolution& b) {
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
          std::to_string(s.count("holds")) +
              (s.holds_partial ? " (" + std::to_string(s.holds_partial) + " partial replacement)" : ""),
          std::to_string(s.count("not_reproduced")), std::to_string(s.count("now_correct")),
          std::to_string(s.count("now_incorrect")), by_class_text(s.count("rejected"), s.rejected_by_class),
          std::to_string(s.count("fails")), std::to_string(s.not_judged())})
      row.push_back(cell);
    runs.rows.push_back(std::move(row));
  }
  ReportTable solutions;
  solutions.heading = "Imported solutions";
  if (folders) solutions.header.push_back("folder");
  for (const char* h : {"run", "level", "problem", "sample", "claimed", "kforge", "status", "reason", "marks"})
    solutions.header.push_back(h);
  for (const auto& s : r.solutions) {
    std::vector<std::string> row;
    if (folders) row.push_back(s.folder);
    for (const std::string& cell :
         {s.run, std::to_string(s.level), s.problem,
          std::to_string(s.sample) + (s.version > 1 ? " (v" + std::to_string(s.version) + ")" : ""),
          claimed_text(s.claim), kforge_text(s), s.rejudged ? s.status : "not re-verified", reason_text(s),
          marks_text(s)})
      row.push_back(cell);
    solutions.rows.push_back(std::move(row));
  }
  std::vector<ReportTable> out = {runs, baseline_table(r), kinds_table(r, folders)};
  if (auto drift = drift_table(r); !drift.rows.empty()) out.push_back(std::move(drift));
  if (auto quality = quality_table(r); !quality.rows.empty()) out.push_back(std::move(quality));
  out.push_back(std::move(solutions));
  return out;
}

std::vector<std::string> import_notes(const ImportReport& r) {
  std::vector<std::string> notes = {
      "Claims are the source run's own (eval_results.json; speedup = baseline mean / runtime). `kforge reverify` "
      "re-judges them: holds (correct, and the claimed speedup is supported: within kforge's measured interval or "
      "on the same side of 1.0), not reproduced (correct, speedup not supported), now incorrect, rejected (a reward "
      "hack, by class), fails (does not build or run), not judged (kforge could not judge it, or the problem or "
      "source changed since the import)."};
  notes.push_back(
      "A claim is compared with kforge's measurement over the same baseline kind (kforge measures eager; claims "
      "over torch.compile, CUDA graphs or cuDNN flags are listed, not judged). hardware_differs: the claim names "
      "another GPU than kforge measured on; it is judged on kforge's own interval (holds when both lie on the same "
      "side of 1.0). reference_differs: the release's own reference is not the dataset's problem; reverify judges "
      "the solution against both. Kinds are read from the solution's text: 'no own kernel' has neither a "
      "__global__ nor a @triton.jit function.");
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
    j["holds_partial_replacement"] = s.holds_partial;
    j["format"] = s.format;
    j["model"] = s.model;
    j["hardware"] = s.hardware;
    j["kinds"] = s.kinds;
    j["reference_differs"] = s.reference_differs;
    j["on_degenerate_problems"] = s.on_degenerate;
    j["on_fooled_problems"] = s.on_fooled;
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
              {"claimed", s.claim.restated_json()},
              {"format", s.format},
              {"kinds", s.kinds},
              {"reference_differs", s.claim.reference && s.claim.reference->differs.value_or(false)},
              {"reference_summary", s.claim.reference ? s.claim.reference->summary : ""},
              {"claimed_reference_status", s.claimed_reference_status},
              {"hardware_differs", s.hardware_differs},
              {"partial_replacement", s.partial},
              {"task_quality", s.claim.task_quality},
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

std::string format_with_imports(const std::vector<ConfigSummary>& ss, const ImportReport& imports, ReportFormat format,
                                const std::string& title) {
  const bool campaign = !ss.empty() || imports.empty();
  if (imports.empty()) return format_report(ss, format, title);
  switch (format) {
    case ReportFormat::json: {
      json configs = json::array();
      for (const auto& s : ss) configs.push_back(s.to_json());
      json out = {{"title", title}, {"imported", import_json(imports)}};
      out["configurations"] = std::move(configs);  // not copied: the units detail may be large
      return out.dump(2) + "\n";
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
