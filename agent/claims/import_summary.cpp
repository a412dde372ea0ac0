// The summary `kforge import` prints (format_import_result, agent/claims/kernelbench_import.h).
#include <algorithm>
#include <map>
#include <sstream>

#include "agent/claims/baseline_kind.h"
#include "agent/claims/kernelbench_import.h"
#include "agent/claims/solution_kinds.h"

namespace kf::agent {

namespace {

std::string counts_text(const std::map<std::string, int>& counts, const std::vector<std::string>& order) {
  std::string t;
  for (const auto& k : order)
    if (auto it = counts.find(k); it != counts.end())
      t += (t.empty() ? "" : ", ") + k + " " + std::to_string(it->second);
  return t.empty() ? "-" : t;
}

}  // namespace

std::string format_import_result(const ImportResult& r) {
  std::ostringstream o;
  o << "# kforge import: " << r.out << " (" << r.run_id << ")\n\n"
    << "| run | format | level | entries | solutions | new | already imported | claimed compiled | claimed correct | "
       "claimed faster | not imported | missing problems | unreadable entries | entries without a solution | "
       "solutions without an entry | warnings |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& run : r.runs) {
    std::string missing = std::to_string(run.missing_problems.size());
    if (!run.missing_problems.empty()) {
      std::string list;
      for (int p : run.missing_problems) list += (list.empty() ? "" : ", ") + std::to_string(p);
      missing += " (" + list + ")";
    }
    o << "| " << run.name << " | " << run.format << " | " << (run.level > 0 ? std::to_string(run.level) : "-") << " | "
      << run.entries << " | " << run.solutions << " | " << run.added << " | " << run.already << " | "
      << run.claimed_compiled << " | " << run.claimed_correct << " | " << run.claimed_faster << " | " << run.skipped
      << " | " << missing << " | " << run.unreadable_entries << " | " << run.entries_without_file << " | "
      << run.without_entry << " | " << run.warnings << " |\n";
  }
  // What the newly imported solutions are, and what their claims are made against.
  o << "\n## Claims and what the solutions are (new solutions)\n\n"
    << "| run | model | hardware (as stated) | claimed speedups by baseline | ";
  for (const auto& k : solution_kinds()) o << solution_kind_label(k) << " | ";
  o << "own reference compared | reference_differs | on degenerate problems | on fooled problems |\n|---|---|---|---|";
  for (size_t i = 0; i < solution_kinds().size(); ++i) o << "---|";
  o << "---|---|---|---|\n";
  for (const auto& run : r.runs) {
    o << "| " << run.name << " | " << (run.model.empty() ? "-" : run.model) << " | "
      << (run.hardware.empty() ? "-" : run.hardware) << " | " << counts_text(run.baselines, baseline_kinds()) << " | ";
    for (const auto& k : solution_kinds()) {
      auto it = run.kinds.find(k);
      o << (it == run.kinds.end() ? 0 : it->second) << " | ";
    }
    o << run.references_compared << " | " << run.references_differ << " | " << run.on_degenerate << " | "
      << run.on_fooled << " |\n";
  }
  // Every problem whose reference differs, a changed computation first: it changes what a speedup means.
  struct Drift {
    std::vector<std::string> changes;
    std::string summary;
    std::vector<std::string> runs;
  };
  std::map<std::pair<int, int>, Drift> drift;
  for (const auto& run : r.runs)
    for (const auto& [key, d] : run.drift) {
      auto& x = drift[key];
      x.changes = d.first;
      x.summary = d.second;
      x.runs.push_back(run.name);
    }
  if (!drift.empty()) {
    std::map<std::string, int> by_change;
    for (const auto& [key, d] : drift)
      for (const auto& c : d.changes) ++by_change[c];
    std::string counts;
    for (const auto& [c, n] : by_change) counts += (counts.empty() ? "" : ", ") + c + " " + std::to_string(n);
    o << "\n## reference_differs: the claim's reference is not the dataset's problem (" << drift.size()
      << " problems; changed: " << counts << ")\n\n| level | problem | changed | runs | what differs (claimed "
      << "reference -> dataset) |\n|---|---|---|---|---|\n";
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& [key, d] : drift) {
        const bool computation = !d.changes.empty() && d.changes.front() == "computation";
        if (computation != (pass == 0)) continue;
        std::string runs, changes;
        for (const auto& n : d.runs) runs += (runs.empty() ? "" : ", ") + n;
        for (const auto& c : d.changes) changes += (changes.empty() ? "" : ", ") + c;
        std::string summary = d.summary;
        std::replace(summary.begin(), summary.end(), '|', '/');
        o << "| " << key.first << " | " << key.second << " | " << changes << " | " << runs << " | " << summary
          << " |\n";
      }
  }
  o << "\nNext: `kforge reverify " << r.out << "` re-judges the claimed-correct solutions; `kforge report " << r.out
    << "` tabulates claims and outcomes.\n";
  return o.str();
}

}  // namespace kf::agent
