#pragma once
// The report of imported solutions (`kforge import`): per source run, what it claimed and what
// `kforge reverify` found (holds, not reproduced, now incorrect, rejected by hack class, fails); and per
// solution, claim against kforge's verdict. docs/campaigns.md defines each column.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/claims/reverify_rule.h"
#include "agent/report/report.h"
#include "corpus/reader.h"

namespace kf::agent {

struct ImportedSolution {
  std::string folder;  // the corpus folder's name in compare; "" in a report of one folder
  std::string run;
  int level = 0;
  int problem_number = 0;
  std::string problem;
  int sample = 0;
  int version = 1;  // the record's turn: 2, 3, ... when the solution's file changed between imports
  corpus::Claim claim;
  bool rejudged = false;  // a reverify result covers it
  std::string status;     // its status there (agent/claims/claim_check.h, or problem_changed / source_missing)
  std::string verdict;    // kforge's verdict there
  std::optional<double> speedup;
  std::optional<SpeedupInterval> interval;
  std::string reason, hack_class, detail;
  std::string format;                    // the release format it was imported from
  std::vector<std::string> kinds;        // what it is (agent/claims/solution_kinds.h)
  bool hardware_differs = false;         // reverify ran on another GPU model than the claim names
  std::string claimed_reference_status;  // reverify's status against the claim's own reference ("" none)
  bool partial = false;  // reverify's verdict: its kernels replace part of the reference's work (partial_replacement)
};

struct ImportedRunSummary {
  std::string folder;
  std::string run;
  std::vector<int> levels;
  int solutions = 0;
  int claimed_compiled = 0, claimed_correct = 0, claimed_faster = 0;
  int rejudged = 0;
  std::map<std::string, int> by_status;          // status -> solutions
  int holds_partial = 0;                         // of those that hold: partial replacements
  std::map<std::string, int> rejected_by_class;  // hack class -> solutions
  std::string format, model, hardware;           // as the first solution names them
  std::map<std::string, int> kinds;              // solution kind -> solutions
  int reference_differs = 0, on_degenerate = 0, on_fooled = 0;
  int count(const std::string& status) const;
  int not_judged() const;  // harness_error, problem_changed, source_missing
};

struct ImportReport {
  std::vector<ImportedRunSummary> runs;
  std::vector<ImportedSolution> solutions;
  std::vector<std::string> reverify_files;  // the reverify results applied, one per folder that has them
  bool empty() const { return solutions.empty(); }
  void append(ImportReport other);
};

// The imported records of a corpus with the folder's reverify results, if any. `folder` labels rows in
// compare ("" for a report of one folder).
ImportReport summarize_imports(const corpus::Corpus& corpus, const std::optional<ReverifyResults>& reverify,
                               const std::string& folder = "");

// The tables the md and html formats show: per run claims and re-verification; claims by baseline kind and
// hardware; what the solutions are; reference drift; claims on degenerate or fooled problems (the last two
// only when there are any); per solution.
std::vector<ReportTable> import_tables(const ImportReport& report);
std::vector<std::string> import_notes(const ImportReport& report);
nlohmann::json import_json(const ImportReport& report);
// One line per source run; the per-solution detail is in the json format.
std::string import_csv(const ImportReport& report);

// `kforge report` / `compare` as md, json or csv: the campaign's figures (format_report; when there are
// configurations, or nothing was imported), then the imported runs'. json: one object with
// "configurations" and "imported"; csv: the imported runs' lines after a blank line.
std::string format_with_imports(const std::vector<ConfigSummary>& summaries, const ImportReport& imports,
                                ReportFormat format, const std::string& title);

}  // namespace kf::agent
