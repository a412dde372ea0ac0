// The report's figures: one ConfigSummary per configuration from a corpus (summarize) and its JSON form.
// The text forms (markdown, csv, tables) are in report_format.cpp.
#include "agent/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>

#include "agent/campaign/category.h"
#include "core/format.h"
#include "verdict/verdict.h"

namespace kf::agent {
namespace {

nlohmann::json opt_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// A verdict past the compile: not no_code, not compile_error, and one this kforge can name.
bool compiled_verdict(const std::optional<eval::VerdictKind>& v) {
  return v && *v != eval::VerdictKind::no_code && *v != eval::VerdictKind::compile_error &&
         *v != eval::VerdictKind::unknown;
}

}  // namespace

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::optional<double> geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  int n = 0;
  for (double v : values)
    if (v > 0) {
      log_sum += std::log(v);
      ++n;
    }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

int ConfigSummary::kernel_failures_total() const {
  int n = 0;
  for (const auto& [k, v] : kernel_failures) n += v;
  return n;
}
int ConfigSummary::provider_failures_total() const {
  int n = 0;
  for (const auto& [k, v] : provider_failures) n += v;
  return n;
}

Distribution distribution(std::vector<double> values) {
  Distribution d;
  d.n = static_cast<int>(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {  // linear interpolation between closest ranks
    const double pos = q * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
  };
  d.median = median(values);
  d.p25 = at(0.25);
  d.p75 = at(0.75);
  return d;
}

nlohmann::json Distribution::to_json() const {
  return {{"n", n}, {"median", opt_json(median)}, {"p25", opt_json(p25)}, {"p75", opt_json(p75)}};
}

void ReportAggregator::add(const corpus::RecordSummary& r, const corpus::RecordPlace& place) {
  using corpus::Kind;
  if (r.kind == Kind::unit_done || r.kind == Kind::imported) return;  // imports: agent/report/import_report.h
  auto& c = configs_[r.key.config];
  auto& s = c.summary;
  s.config = r.key.config;
  if (s.provider.empty()) s.provider = r.provider;
  if (s.model.empty()) s.model = r.model;
  if (s.candidate_format.empty()) s.candidate_format = r.candidate_format;
  s.tokens += r.tokens;
  s.cost_usd += r.cost_usd;
  auto& search = c.searches[r.key.problem];
  search.problem = r.key.problem;
  search.add(r);
  auto& u = c.units[{r.key.problem, r.key.sample}];
  if (u.category.empty()) u.category = r.category.empty() ? "other" : r.category;
  if (r.kind == Kind::provider_failure) {
    s.provider_failures[r.error_kind.empty() ? "unknown" : r.error_kind]++;
    return;
  }
  if (r.kind == Kind::harness_failure) {
    s.harness_failures++;
    return;
  }
  s.evaluations++;
  if (!c.first_evaluation) c.first_evaluation = place;
  u.replied = true;
  u.max_turn = std::max(u.max_turn, r.turn);
  if (compiled_verdict(r.verdict)) u.compiled = true;
  if (!r.correct) {
    s.kernel_failures[eval::to_string(r.verdict.value_or(eval::VerdictKind::unknown))]++;
    return;
  }
  u.correct = true;
  if (!u.first_correct_turn || r.turn < *u.first_correct_turn) u.first_correct_turn = r.turn;
  if (!u.best || corpus::ranks_above(r.speedup, r.turn, u.best_speedup, u.best_turn)) {
    u.best = place;
    u.best_turn = r.turn;
  }
  if (r.speedup && (!u.best_speedup || *r.speedup > *u.best_speedup)) u.best_speedup = r.speedup;
}

Result<std::vector<ConfigSummary>> ReportAggregator::finish(const VerifiedSpeedupRule& rule, const Fetch& fetch,
                                                            const Fetch& whole) const {
  std::vector<ConfigSummary> out;
  // What each unit reached, from its tallies; the best kernels are judged below, read back in file order.
  struct Pending {
    corpus::RecordPlace place;
    size_t config, outcome;
  };
  std::vector<Pending> pending;
  for (const auto& [name, c] : configs_) {
    ConfigSummary s = c.summary;
    if (s.candidate_format.empty()) s.candidate_format = "kf_forward";  // written before the format was recorded
    if (rule.reverify()) s.reverify_file = rule.reverify()->origin();
    for (const auto& [problem, search] : c.searches) s.searches.push_back(search);
    for (const auto& [pk, u] : c.units) {
      if (!u.replied) {
        s.units_no_reply++;
        continue;
      }
      UnitReached outcome;
      outcome.problem = pk.first;
      outcome.sample = pk.second;
      outcome.category = u.category.empty() ? "other" : u.category;
      outcome.first_correct_turn = u.first_correct_turn;
      outcome.best_speedup = u.best_speedup;
      if (u.best) {
        outcome.best_turn = u.best_turn;
        pending.push_back({*u.best, out.size(), s.outcomes.size()});
      }
      s.outcomes.push_back(std::move(outcome));
    }
    out.push_back(std::move(s));
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.place.file, a.place.offset) < std::tie(b.place.file, b.place.offset);
  });
  for (const auto& p : pending) {
    auto& outcome = out[p.config].outcomes[p.outcome];
    auto best = fetch(p.place);
    if (!best) return best.error();
    if (best->config != out[p.config].config || best->problem.name != outcome.problem ||
        best->sample != outcome.sample || best->turn != outcome.best_turn || !best->correct())
      return make_error("report.corpus_changed", "the best kernel of " + out[p.config].config + " / " +
                                                     outcome.problem + " sample " + std::to_string(outcome.sample) +
                                                     " is not where it was read: did the corpus change?");
    outcome.judgement = rule.judge(*best);
    const eval::Verdict& y = best->verdict ? *best->verdict : eval::Verdict::none();
    for (const auto& [bname, b] : y.baselines) {
      if (b.speedup) outcome.speedup_over[bname] = *b.speedup;
      if (b.peak) outcome.baseline_peak_fraction[bname] = b.peak->fraction;
    }
    if (y.peak) {
      outcome.peak_fraction = y.peak->fraction;
      outcome.bound_by = y.peak->bound_by;
    }
  }
  // Each configuration's strategy (its first evaluation's lineage) and each problem's best kernel over its
  // samples with its lineage: a few records read whole.
  std::map<std::pair<size_t, std::string>, std::pair<const Pending*, const UnitReached*>> problem_best;
  for (const auto& p : pending) {
    const auto& o = out[p.config].outcomes[p.outcome];
    auto& b = problem_best[{p.config, o.problem}];
    if (!b.first || corpus::ranks_above(o.best_speedup, *o.best_turn, b.second->best_speedup, *b.second->best_turn))
      b = {&p, &o};
  }
  for (const auto& [key, b] : problem_best) {
    std::optional<corpus::Lineage> lineage;
    if (whole) {
      auto rec = whole(b.first->place);
      if (!rec) return rec.error();
      lineage = rec->lineage;
    }
    out[key.first].best_per_problem.push_back(
        {key.second, b.second->sample, *b.second->best_turn, b.second->best_speedup, std::move(lineage)});
  }
  if (whole) {
    size_t i = 0;
    for (const auto& [name, c] : configs_) {
      auto& s = out[i++];
      if (!c.first_evaluation) continue;
      auto first = whole(*c.first_evaluation);
      if (!first) return first.error();
      if (first->lineage && !first->lineage->strategy.empty()) s.strategy = first->lineage->strategy;
    }
  }

  size_t ci = 0;
  for (const auto& [name, c] : configs_) {
    auto& s = out[ci++];
    std::set<std::string> problems;
    std::vector<double> best_speedups, wins;
    std::map<std::string, std::vector<double>> cat_speedups;
    for (const auto& f : fast_thresholds()) s.fast_count[f] = 0;
    int max_turn = 0;
    size_t oi = 0;
    for (const auto& [pk, u] : c.units) {
      if (!u.replied) continue;
      const auto& outcome = s.outcomes[oi++];
      max_turn = std::max(max_turn, u.max_turn);
      problems.insert(pk.first);
      s.units++;
      auto& cat = s.categories[outcome.category];
      cat.units++;
      if (u.compiled) s.units_compiled++;
      if (!u.correct) continue;
      s.units_correct++;
      cat.correct++;
      s.fast_count["0"]++;
      if (!u.best_speedup) continue;
      double sp = *u.best_speedup;
      best_speedups.push_back(sp);
      cat_speedups[outcome.category].push_back(sp);
      if (sp > 1.0) {
        s.fast_count["1.0"]++;
        wins.push_back(sp);
        cat.faster++;
        const auto& j = outcome.judgement;
        if (j.reverify_status) s.reverify_covered++;
        if (j.verified()) {
          s.verified_speedups++;
          cat.verified++;
        } else {
          s.unverified[to_string(j.check)]++;
        }
      }
      if (sp > 1.5) s.fast_count["1.5"]++;
      if (sp > 2.0) s.fast_count["2.0"]++;
    }
    s.problems_attempted = static_cast<int>(problems.size());
    s.faster_unverified = s.fast_count["1.0"];
    s.correct_by_turn.assign(static_cast<size_t>(max_turn), 0);
    for (const auto& o : s.outcomes)
      if (o.first_correct_turn)
        for (int t = std::max(*o.first_correct_turn, 1); t <= max_turn; ++t) s.correct_by_turn[t - 1]++;
    std::map<std::string, std::vector<double>> over, base_peaks;
    std::vector<double> peaks;
    for (const auto& o : s.outcomes) {
      for (const auto& [bname, sp] : o.speedup_over) over[bname].push_back(sp);
      for (const auto& [bname, f] : o.baseline_peak_fraction) base_peaks[bname].push_back(f);
      if (o.peak_fraction) peaks.push_back(*o.peak_fraction);
    }
    for (const auto& [bname, v] : over) s.median_speedup_over[bname] = median(v);
    for (const auto& [bname, v] : base_peaks) s.baseline_peak_fraction[bname] = distribution(v);
    s.peak_fraction = distribution(peaks);
    s.median_speedup = median(best_speedups);
    s.geomean_speedup = geometric_mean(best_speedups);
    s.median_speedup_of_wins = median(wins);
    for (auto& [cname, cat] : s.categories) cat.median_speedup = median(cat_speedups[cname]);
    if (s.problems_attempted > 0) {
      s.tokens_per_problem = static_cast<double>(s.tokens) / s.problems_attempted;
      s.cost_per_problem = s.cost_usd / s.problems_attempted;
    }
    if (s.units_correct > 0) {
      s.tokens_per_correct = static_cast<double>(s.tokens) / s.units_correct;
      s.cost_per_correct = s.cost_usd / s.units_correct;
    }
  }
  return out;
}

std::vector<ConfigSummary> summarize(const corpus::Corpus& corpus, const VerifiedSpeedupRule& rule) {
  ReportAggregator aggregator;
  for (size_t i = 0; i < corpus.records.size(); ++i)
    aggregator.add(corpus::RecordSummary::of(corpus.records[i]), {0, i, 0});  // place: the record's index
  auto at = [&](const corpus::RecordPlace& p) -> Result<corpus::Record> { return corpus.records[p.offset]; };
  auto out = aggregator.finish(rule, at, at);
  return out ? std::move(*out) : std::vector<ConfigSummary>{};  // records in memory are always there
}

Result<FolderReport> summarize_folder(const std::string& dir, const VerifiedSpeedupRule& rule) {
  ReportAggregator aggregator;
  std::vector<corpus::Record> imported;  // few, and summarize_imports reads them whole
  auto streamed =
      corpus::stream(dir, [&](const corpus::RecordSummary& s, std::string_view line, const corpus::RecordPlace& place) {
        if (s.kind != corpus::Kind::imported) {
          aggregator.add(s, place);
        } else if (auto r = corpus::parse_record_line(line)) {  // the stream parsed it already: it is valid
          imported.push_back(std::move(*r));
        }
      });
  if (!streamed) return streamed.error();
  corpus::RecordReader reader(*streamed);
  auto summaries = aggregator.finish(
      rule, [&](const corpus::RecordPlace& p) { return reader.verdict_at(p); },
      [&](const corpus::RecordPlace& p) { return reader.at(p); });
  if (!summaries) return summaries.error();
  FolderReport out{std::move(*summaries), std::move(*streamed)};
  out.imports.records = std::move(imported);
  return out;
}

nlohmann::json ConfigSummary::to_json() const {
  nlohmann::json j;
  if (!run.empty()) j["run"] = run;
  j["config"] = config;
  j["provider"] = provider;
  j["model"] = model;
  j["candidate_format"] = candidate_format;
  j["problems_attempted"] = problems_attempted;
  j["units"] = units;
  j["units_no_reply"] = units_no_reply;
  j["compiled"] = {{"count", units_compiled}, {"pct", pct(units_compiled)}};
  j["correct"] = {{"count", units_correct}, {"pct", pct(units_correct)}};
  nlohmann::json fast = nlohmann::json::object();
  for (const auto& [p, n] : fast_count)
    fast[p] = {{"count", n}, {"fraction", units == 0 ? 0.0 : static_cast<double>(n) / units}};
  j["fast_p"] = fast;
  j["verified_speedups"] = verified_speedups;
  j["faster_than_baseline_unverified"] = faster_unverified;
  j["unverified_speedups"] = unverified;
  j["reverify"] = {{"file", reverify_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(reverify_file)},
                   {"faster_units_rejudged", reverify_covered}};
  j["median_speedup"] = opt_json(median_speedup);
  j["geomean_speedup"] = opt_json(geomean_speedup);
  j["median_speedup_of_wins"] = opt_json(median_speedup_of_wins);
  j["median_speedup_over"] = nlohmann::json::object();
  for (const auto& [bname, m] : median_speedup_over) j["median_speedup_over"][bname] = opt_json(m);
  j["peak_fraction"] = peak_fraction.to_json();
  j["baseline_peak_fraction"] = nlohmann::json::object();
  for (const auto& [bname, d] : baseline_peak_fraction) j["baseline_peak_fraction"][bname] = d.to_json();
  nlohmann::json cats = nlohmann::json::object();
  for (const auto& [name, c] : categories)
    cats[name] = {{"units", c.units},
                  {"correct", c.correct},
                  {"faster", c.faster},
                  {"verified", c.verified},
                  {"median_speedup", opt_json(c.median_speedup)}};
  j["categories"] = cats;
  j["evaluations"] = evaluations;
  j["tokens"] = tokens;
  j["cost_usd"] = cost_usd;
  j["tokens_per_problem"] = opt_json(tokens_per_problem);
  j["cost_per_problem"] = opt_json(cost_per_problem);
  j["tokens_per_correct"] = opt_json(tokens_per_correct);
  j["cost_per_correct"] = opt_json(cost_per_correct);
  j["kernel_failures"] = {{"total", kernel_failures_total()}, {"by_verdict", kernel_failures}};
  j["provider_failures"] = {{"total", provider_failures_total()}, {"by_kind", provider_failures}};
  j["harness_failures"] = harness_failures;
  j["correct_by_turn"] = correct_by_turn;
  nlohmann::json units_json = nlohmann::json::array();
  for (const auto& o : outcomes) {
    const auto& jd = o.judgement;
    units_json.push_back(
        {{"problem", o.problem},
         {"sample", o.sample},
         {"category", o.category},
         {"first_correct_turn", o.first_correct_turn ? nlohmann::json(*o.first_correct_turn) : nlohmann::json()},
         {"best_turn", o.best_turn ? nlohmann::json(*o.best_turn) : nlohmann::json()},
         {"best_speedup", opt_json(o.best_speedup)},
         {"interval", jd.interval ? nlohmann::json::array({jd.interval->low, jd.interval->high}) : nlohmann::json()},
         {"reverify_status", jd.reverify_status ? nlohmann::json(*jd.reverify_status) : nlohmann::json()},
         {"speedup_check", to_string(jd.check)},
         {"speedup_over", o.speedup_over},
         {"peak_fraction", opt_json(o.peak_fraction)},
         {"bound_by", o.bound_by.empty() ? nlohmann::json() : nlohmann::json(o.bound_by)},
         {"baseline_peak_fraction", o.baseline_peak_fraction}});
  }
  j["units_detail"] = units_json;
  j["strategy"] = strategy;
  auto step_json = [](const BudgetStep& b) {
    return nlohmann::json{{"evaluations", b.evaluations},
                          {"tokens", b.tokens},
                          {"cost_usd", b.cost_usd},
                          {"correct", b.correct},
                          {"best_speedup", opt_json(b.best_speedup)}};
  };
  nlohmann::json searches_json = nlohmann::json::array();
  for (const auto& search : searches) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& b : search.improvements) steps.push_back(step_json(b));
    searches_json.push_back({{"problem", search.problem}, {"improvements", steps}, {"total", step_json(search.total)}});
  }
  j["searches"] = searches_json;
  nlohmann::json bests = nlohmann::json::array();
  for (const auto& b : best_per_problem)
    bests.push_back({{"problem", b.problem},
                     {"sample", b.sample},
                     {"turn", b.turn},
                     {"speedup", opt_json(b.speedup)},
                     {"lineage", b.lineage ? b.lineage->to_json() : nlohmann::json(nullptr)}});
  j["best_per_problem"] = bests;
  return j;
}

}  // namespace kf::agent
