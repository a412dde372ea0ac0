// The report's text forms: markdown and csv, the tables and notes the html report shares, `compare`.
#include "agent/report/report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

#include "agent/campaign/category.h"
#include "core/format.h"

namespace kf::agent {
namespace {

std::string fmt_opt(const std::optional<double>& v, int decimals, const std::string& suffix = "") {
  return v ? format_fixed(*v, decimals) + suffix : "-";
}

// "42% [31-55%] (n 6)": a fraction of peak's median and quartiles over units, as percentages.
std::string peak_text(const Distribution& d) {
  if (!d.median) return "-";
  auto pct = [](double f) { return format_significant(f * 100, 3); };
  return pct(*d.median) + "% [" + pct(d.p25.value_or(0)) + "-" + pct(d.p75.value_or(0)) + "%] (n " +
         std::to_string(d.n) + ")";
}

std::string speedup_over_text(const ConfigSummary& s, const std::string& baseline) {
  auto it = s.median_speedup_over.find(baseline);
  return it == s.median_speedup_over.end() ? "-" : fmt_opt(it->second, 3, "x");
}

std::string baseline_peak_text(const ConfigSummary& s, const std::string& baseline) {
  auto it = s.baseline_peak_fraction.find(baseline);
  return it == s.baseline_peak_fraction.end() ? "-" : peak_text(it->second);
}

}  // namespace

std::optional<ReportFormat> parse_report_format(const std::string& text) {
  if (text == "md" || text == "markdown") return ReportFormat::md;
  if (text == "json") return ReportFormat::json;
  if (text == "csv") return ReportFormat::csv;
  return std::nullopt;
}

namespace {

std::string count_pct(const ConfigSummary& s, int n) {
  return std::to_string(n) + "/" + std::to_string(s.units) + " (" + format_fixed(s.pct(n), 1) + "%)";
}

std::string failures_text(const std::map<std::string, int>& m) {
  if (m.empty()) return "0";
  int total = 0;
  std::string parts;
  for (const auto& [k, v] : m) {
    total += v;
    parts += (parts.empty() ? "" : ", ") + k + " " + std::to_string(v);
  }
  return std::to_string(total) + " (" + parts + ")";
}

std::string unverified_text(const ConfigSummary& s) {
  std::string out = std::to_string(s.faster_unverified) + " of " + std::to_string(s.units);
  std::string parts;
  for (const auto& [why, n] : s.unverified)
    parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " +
             (why == "within_spread"            ? "within the spread"
              : why == "no_spread"              ? "without a timing spread"
              : why == "not_held"               ? "not held under reverify"
              : why == "inputs_repeated"        ? "timed on repeated inputs"
              : why == "in_process_attribution" ? "kernels' work reported only from inside the solution's process"
              : why == "partial_replacement"    ? "partial replacement: PyTorch does part of the reference's work"
                                                : why);
  return parts.empty() ? out : out + " (not verified: " + parts + ")";
}

std::string markdown(const std::vector<ConfigSummary>& ss, const std::string& title) {
  std::ostringstream o;
  o << "# " << title << "\n\n";
  if (ss.empty()) {
    o << "No evaluations recorded yet.\n";
    return o.str();
  }
  auto tables = report_tables(ss);
  o << markdown_table(tables.front()) << "\n";
  for (const auto& note : report_notes(ss)) o << note << "\n";
  for (size_t i = 1; i < tables.size(); ++i) o << "\n" << markdown_table(tables[i]);
  return o.str();
}

std::string csv(const std::vector<ConfigSummary>& ss) {
  std::ostringstream o;
  o << "run,config,provider,model,candidate_format,problems_attempted,units,compiled,compiled_pct,correct,"
       "correct_pct,fast_0,fast_1.0,fast_1.5,fast_2.0,verified_speedups,faster_than_baseline_unverified,median_speedup,"
       "geomean_speedup,"
       "median_speedup_of_wins,evaluations,tokens,cost_usd,tokens_per_problem,cost_per_problem,tokens_per_correct,"
       "cost_per_correct,kernel_failures,provider_failures,harness_failures,unverified_no_spread,"
       "unverified_within_spread,unverified_not_held,unverified_inputs_repeated,reverify_file";
  for (const auto& cat : known_categories()) o << ",correct/units:" << cat;
  o << ",median_speedup_over_eager,median_speedup_over_compile,peak_fraction_median,peak_fraction_p25,"
       "peak_fraction_p75,eager_peak_fraction_median,compile_peak_fraction_median";
  o << "\n";
  for (const auto& s : ss) {
    auto frac = [&](int n) { return format_fixed(s.units ? static_cast<double>(n) / s.units : 0.0, 4); };
    o << csv_field(s.run) << "," << csv_field(s.config) << "," << csv_field(s.provider) << "," << csv_field(s.model)
      << "," << csv_field(s.candidate_format) << "," << s.problems_attempted << "," << s.units << ","
      << s.units_compiled << "," << format_fixed(s.pct(s.units_compiled), 2) << "," << s.units_correct << ","
      << format_fixed(s.pct(s.units_correct), 2) << "," << frac(s.fast_count.at("0")) << ","
      << frac(s.fast_count.at("1.0")) << "," << frac(s.fast_count.at("1.5")) << "," << frac(s.fast_count.at("2.0"))
      << "," << s.verified_speedups << "," << s.faster_unverified << "," << fmt_opt(s.median_speedup, 4) << ","
      << fmt_opt(s.geomean_speedup, 4) << "," << fmt_opt(s.median_speedup_of_wins, 4) << "," << s.evaluations << ","
      << s.tokens << "," << format_fixed(s.cost_usd, 6) << "," << fmt_opt(s.tokens_per_problem, 1) << ","
      << fmt_opt(s.cost_per_problem, 6) << "," << fmt_opt(s.tokens_per_correct, 1) << ","
      << fmt_opt(s.cost_per_correct, 6) << "," << s.kernel_failures_total() << "," << s.provider_failures_total() << ","
      << s.harness_failures;
    for (const char* why : {"no_spread", "within_spread", "not_held", "inputs_repeated"}) {
      auto it = s.unverified.find(why);
      o << "," << (it == s.unverified.end() ? 0 : it->second);
    }
    o << "," << csv_field(s.reverify_file);
    for (const auto& cat : known_categories()) {
      auto it = s.categories.find(cat);
      o << ",";
      if (it != s.categories.end()) o << it->second.correct << "/" << it->second.units;
    }
    for (const char* b : {"eager", "compile"}) {
      auto it = s.median_speedup_over.find(b);
      o << "," << (it == s.median_speedup_over.end() ? "-" : fmt_opt(it->second, 4));
    }
    o << "," << fmt_opt(s.peak_fraction.median, 4) << "," << fmt_opt(s.peak_fraction.p25, 4) << ","
      << fmt_opt(s.peak_fraction.p75, 4);
    for (const char* b : {"eager", "compile"}) {
      auto it = s.baseline_peak_fraction.find(b);
      o << "," << (it == s.baseline_peak_fraction.end() ? "-" : fmt_opt(it->second.median, 4));
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string markdown_table(const ReportTable& t) {
  std::ostringstream o;
  if (!t.heading.empty()) o << "## " << t.heading << "\n\n";
  o << "|";
  for (const auto& h : t.header) o << " " << h << " |";
  o << "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) o << "---|";
  o << "\n";
  for (const auto& row : t.rows) {
    o << "|";
    for (const auto& cell : row) o << " " << cell << " |";
    o << "\n";
  }
  return o.str();
}

std::vector<ReportTable> report_tables(const std::vector<ConfigSummary>& ss) {
  using Row = std::pair<std::string, std::function<std::string(const ConfigSummary&)>>;
  std::vector<Row> rows = {
      {"provider / model", [](const ConfigSummary& s) { return s.provider + " / " + s.model; }},
      {"candidate format", [](const ConfigSummary& s) { return s.candidate_format; }},
      {"problems attempted", [](const ConfigSummary& s) { return std::to_string(s.problems_attempted); }},
      {"units (problem x sample)", [](const ConfigSummary& s) { return std::to_string(s.units); }},
      {"compiled", [](const ConfigSummary& s) { return count_pct(s, s.units_compiled); }},
      {"correct (fast_0)", [](const ConfigSummary& s) { return count_pct(s, s.units_correct); }},
      {"fast_1.0", [](const ConfigSummary& s) { return count_pct(s, s.fast_count.at("1.0")); }},
      {"fast_1.5", [](const ConfigSummary& s) { return count_pct(s, s.fast_count.at("1.5")); }},
      {"fast_2.0", [](const ConfigSummary& s) { return count_pct(s, s.fast_count.at("2.0")); }},
      {"verified speedups",
       [](const ConfigSummary& s) { return std::to_string(s.verified_speedups) + " of " + std::to_string(s.units); }},
      {"faster than baseline (unverified)", unverified_text},
      {"median speedup (correct)", [](const ConfigSummary& s) { return fmt_opt(s.median_speedup, 3, "x"); }},
      {"geomean speedup (correct)", [](const ConfigSummary& s) { return fmt_opt(s.geomean_speedup, 3, "x"); }},
      {"median speedup (faster units)",
       [](const ConfigSummary& s) { return fmt_opt(s.median_speedup_of_wins, 3, "x"); }},
      {"median speedup over eager", [](const ConfigSummary& s) { return speedup_over_text(s, "eager"); }},
      {"median speedup over torch.compile", [](const ConfigSummary& s) { return speedup_over_text(s, "compile"); }},
      {"fraction of peak: kernels, median [p25-p75]",
       [](const ConfigSummary& s) { return peak_text(s.peak_fraction); }},
      {"fraction of peak: eager", [](const ConfigSummary& s) { return baseline_peak_text(s, "eager"); }},
      {"fraction of peak: torch.compile", [](const ConfigSummary& s) { return baseline_peak_text(s, "compile"); }},
      {"evaluations", [](const ConfigSummary& s) { return std::to_string(s.evaluations); }},
      {"tokens", [](const ConfigSummary& s) { return std::to_string(s.tokens); }},
      {"cost", [](const ConfigSummary& s) { return "$" + format_fixed(s.cost_usd, 4); }},
      {"tokens / problem", [](const ConfigSummary& s) { return fmt_opt(s.tokens_per_problem, 0); }},
      {"cost / problem",
       [](const ConfigSummary& s) { return s.cost_per_problem ? "$" + format_fixed(*s.cost_per_problem, 4) : "-"; }},
      {"tokens / correct kernel", [](const ConfigSummary& s) { return fmt_opt(s.tokens_per_correct, 0); }},
      {"cost / correct kernel",
       [](const ConfigSummary& s) { return s.cost_per_correct ? "$" + format_fixed(*s.cost_per_correct, 4) : "-"; }},
      {"kernel failures", [](const ConfigSummary& s) { return failures_text(s.kernel_failures); }},
      {"provider failures", [](const ConfigSummary& s) { return failures_text(s.provider_failures); }},
      {"harness failures", [](const ConfigSummary& s) { return std::to_string(s.harness_failures); }},
      {"units without any reply", [](const ConfigSummary& s) { return std::to_string(s.units_no_reply); }},
  };
  ReportTable figures;
  figures.header.push_back("metric");
  for (const auto& s : ss) figures.header.push_back(column_name(s));
  for (const auto& [label, f] : rows) {
    std::vector<std::string> row = {label};
    for (const auto& s : ss) row.push_back(f(s));
    figures.rows.push_back(std::move(row));
  }

  ReportTable cats;
  cats.heading = "Per category (correct/units, faster than baseline, verified, median speedup)";
  cats.header = figures.header;
  cats.header.front() = "category";
  for (const auto& cat : report_categories(ss)) {
    std::vector<std::string> row = {cat};
    for (const auto& s : ss) {
      auto it = s.categories.find(cat);
      if (it == s.categories.end()) {
        row.push_back("-");
        continue;
      }
      const auto& c = it->second;
      row.push_back(std::to_string(c.correct) + "/" + std::to_string(c.units) + ", " + std::to_string(c.faster) +
                    " faster, " + std::to_string(c.verified) + " verified, " + fmt_opt(c.median_speedup, 3, "x"));
    }
    cats.rows.push_back(std::move(row));
  }
  std::vector<ReportTable> out = {figures, cats};
  for (auto& t : equal_budget_tables(ss)) out.push_back(std::move(t));
  if (auto t = lineage_table(ss)) out.push_back(std::move(*t));
  return out;
}

namespace {

// "s0 t3, s1 t2": records of the same configuration and problem.
std::string record_ids(const std::vector<corpus::RecordId>& ids) {
  std::string out;
  for (const auto& id : ids)
    out += (out.empty() ? "" : ", ") + std::string("s") + std::to_string(id.sample) + " t" + std::to_string(id.turn);
  return out;
}

}  // namespace

std::optional<ReportTable> lineage_table(const std::vector<ConfigSummary>& ss) {
  ReportTable t;
  t.heading =
      "Lineage of each problem's best kernel (sample s, turn t; parents: the kernels its prompt asked to "
      "improve)";
  t.header = {"configuration", "problem", "best speedup", "kernel",      "strategy",
              "round",         "island",  "parents",      "inspirations"};
  for (const auto& s : ss)
    for (const auto& b : s.best_per_problem) {
      std::vector<std::string> row = {column_name(s), b.problem, fmt_opt(b.speedup, 3, "x"),
                                      "s" + std::to_string(b.sample) + " t" + std::to_string(b.turn)};
      if (b.lineage) {
        const auto& l = *b.lineage;
        row.push_back(l.strategy);
        row.push_back(std::to_string(l.round));
        row.push_back(l.island ? std::to_string(*l.island) : "-");
        row.push_back(l.parents.empty() ? "- (first turn)" : record_ids(l.parents));
        row.push_back(l.inspirations.empty() ? "-" : record_ids(l.inspirations));
      } else {
        // refine: one conversation, each turn refines the one before it.
        row.insert(
            row.end(),
            {"refine", "-", "-",
             b.turn > 1 ? "s" + std::to_string(b.sample) + " t" + std::to_string(b.turn - 1) : "- (first turn)", "-"});
      }
      t.rows.push_back(std::move(row));
    }
  if (t.rows.empty()) return std::nullopt;
  return t;
}

namespace {

const BudgetAxis kAxes[] = {BudgetAxis::evaluations, BudgetAxis::tokens, BudgetAxis::dollars};

std::vector<const std::vector<SearchCourse>*> all_searches(const std::vector<ConfigSummary>& ss) {
  std::vector<const std::vector<SearchCourse>*> out;
  for (const auto& s : ss) out.push_back(&s.searches);
  return out;
}

const char* axis_heading(BudgetAxis axis) {
  switch (axis) {
    case BudgetAxis::evaluations: return "evaluations per problem";
    case BudgetAxis::tokens: return "tokens per problem";
    case BudgetAxis::dollars: return "dollars per problem";
  }
  return "";
}

}  // namespace

std::vector<ReportTable> equal_budget_tables(const std::vector<ConfigSummary>& ss) {
  std::vector<ReportTable> out;
  const auto searches = all_searches(ss);
  for (BudgetAxis axis : kAxes) {
    const auto levels = budget_levels(searches, axis);
    if (levels.empty()) continue;
    ReportTable t;
    t.heading = std::string("Best speedup at equal budget: ") + axis_heading(axis) +
                " (geometric mean over problems of the best speedup reached, 1x where none beat the baseline; "
                "problems faster than the baseline)";
    t.header = {"configuration", "strategy"};
    for (double level : levels) t.header.push_back(budget_label(level, axis));
    for (const auto& s : ss) {
      std::vector<std::string> row = {column_name(s), s.strategy};
      for (double level : levels) {
        const AtBudget a = at_budget(s.searches, axis, level);
        row.push_back(fmt_opt(a.geomean_best, 3, "x") + " (" + std::to_string(a.faster) + "/" +
                      std::to_string(a.problems) + " faster)");
      }
      t.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

nlohmann::json equal_budget_json(const std::vector<ConfigSummary>& ss) {
  nlohmann::json out = nlohmann::json::object();
  const auto searches = all_searches(ss);
  for (BudgetAxis axis : kAxes) {
    const auto levels = budget_levels(searches, axis);
    nlohmann::json configs = nlohmann::json::object();
    for (const auto& s : ss) {
      nlohmann::json points = nlohmann::json::array();
      for (double level : levels) points.push_back(at_budget(s.searches, axis, level).to_json());
      configs[column_name(s)] = {{"strategy", s.strategy}, {"at", points}};
    }
    out[to_string(axis)] = {{"levels", levels}, {"configurations", configs}};
  }
  return out;
}

std::vector<std::string> report_notes(const std::vector<ConfigSummary>& ss) {
  std::vector<std::string> notes = {
      "Verified speedups: the unit's best correct kernel has a speedup interval [baseline p10 / kernel p90, "
      "baseline p90 / kernel p10] whose lower end is above 1.0 and, where `kforge reverify` re-judged that kernel, "
      "the claim held there. \"Faster than baseline (unverified)\" counts every best speedup above 1.0.",
      "Speedups and fast_p are over each configuration's primary baseline (evaluation.baseline: eager unless set); "
      "the rows \"over eager\" and \"over torch.compile\" give both where they were timed. Fraction of peak: the "
      "roofline bound (minimum bytes at the memory peak, or counted FLOPs at the compute peak, whichever is "
      "longer) / the measured time, of each unit's best kernel and of the baselines on the same problems "
      "(docs/evaluator.md, \"Yardsticks\")."};
  std::set<std::string> files;
  bool any_without = false;
  for (const auto& s : ss) {
    if (s.reverify_file.empty())
      any_without = true;
    else
      files.insert(s.reverify_file);
  }
  for (const auto& f : files) notes.push_back("Reverify results applied: " + f + ".");
  if (any_without)
    notes.push_back(files.empty()
                        ? "No reverify results found (run `kforge reverify DIR` to add them)."
                        : "Some runs have no reverify results: their speedups are judged by the interval only.");
  return notes;
}

std::vector<std::string> report_categories(const std::vector<ConfigSummary>& ss) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto present = [&](const std::string& cat) {
    return std::any_of(ss.begin(), ss.end(), [&](const ConfigSummary& s) { return s.categories.count(cat) > 0; });
  };
  for (const auto& cat : known_categories())
    if (present(cat) && seen.insert(cat).second) out.push_back(cat);
  for (const auto& s : ss)
    for (const auto& [cat, c] : s.categories)
      if (seen.insert(cat).second) out.push_back(cat);
  return out;
}

std::string column_name(const ConfigSummary& s) { return s.run.empty() ? s.config : s.run + ": " + s.config; }

std::string format_report(const std::vector<ConfigSummary>& ss, ReportFormat format, const std::string& title) {
  switch (format) {
    case ReportFormat::md: return markdown(ss, title);
    case ReportFormat::csv: return csv(ss);
    case ReportFormat::json: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& s : ss) j.push_back(s.to_json());
      nlohmann::json out = {{"title", title}};
      out["equal_budget"] = equal_budget_json(ss);
      out["configurations"] = std::move(j);  // not copied: a million records' units detail is large
      return out.dump(2) + "\n";
    }
  }
  return "";
}

}  // namespace kf::agent
