// The html report's figures, one function each, with the helpers they share (colours and point shapes per
// configuration, axes, labels). Over 450 lines on purpose: the figures are read and changed together so that
// colours, axes and wording agree from one figure to the next; a file per figure would scatter that.
#include "agent/report/report_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/format.h"

namespace kf::agent {
namespace {

// One colour per configuration, the same in every figure (Okabe-Ito, then a few more).
const char* config_colour(size_t i) {
  static const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00",
                                   "#56b4e9", "#000000", "#8c564b", "#7f7f7f", "#bcbd22"};
  return kColours[i % (sizeof kColours / sizeof kColours[0])];
}
int config_point(size_t i) { return 7 + 2 * static_cast<int>((i / 10) % 3); }  // filled circle, triangle, ...

std::string num(double v) { return format_significant(v, 6); }

std::string money(double v) { return "$" + format_fixed(v, v >= 0.01 || v == 0 ? 4 : 6); }

// A best speedup that can go on a log axis (a hostile corpus can hold any number).
bool plottable(const UnitReached& o) {
  return o.best_speedup && *o.best_speedup > 0 && std::isfinite(*o.best_speedup * 1.05);
}

// Lines of numbers as a gnuplot datablock ($name << EOD ... EOD).
struct Datablock {
  std::string name;
  std::vector<std::vector<double>> rows;
  std::string text() const {
    std::string out = name + " << EOD\n";
    for (const auto& r : rows) {
      for (size_t i = 0; i < r.size(); ++i) out += (i ? " " : "") + num(r[i]);
      out += "\n";
    }
    return out + "EOD\n";
  }
};

// Builds one plot: datablocks, settings and clauses, keeping the clause names in order.
class PlotBuilder {
 public:
  PlotBuilder(std::string id, std::string title, std::string definition) {
    plot_.id = std::move(id);
    plot_.title = std::move(title);
    plot_.definition = std::move(definition);
  }
  void data(const Datablock& d) { data_ += d.text(); }
  void set(const std::string& line) { settings_ += line + "\n"; }
  void clause(const std::string& text, const std::string& series) {
    clauses_.push_back(text + (series.empty() ? " notitle" : " title " + gnuplot_quote(series)));
    plot_.series.push_back(series);
  }
  Plot finish(const std::string& no_data) {
    if (clauses_.empty() || !has_data_) {
      plot_.series.clear();
      plot_.no_data = no_data;
      return plot_;
    }
    std::string plot = "plot ";
    for (size_t i = 0; i < clauses_.size(); ++i) plot += (i ? ", \\\n     " : "") + clauses_[i];
    plot_.script = data_ + settings_ + plot + "\n";
    return plot_;
  }
  void has_data() { has_data_ = true; }
  void height(int h) { plot_.height = h; }

 private:
  Plot plot_;
  std::string data_, settings_;
  std::vector<std::string> clauses_;
  bool has_data_ = false;
};

// Configurations that have at least one unit (a reply), with their index for colours.
std::vector<std::pair<size_t, const ConfigSummary*>> plotted(const std::vector<ConfigSummary>& ss) {
  std::vector<std::pair<size_t, const ConfigSummary*>> out;
  for (size_t i = 0; i < ss.size(); ++i)
    if (ss[i].units > 0) out.emplace_back(i, &ss[i]);
  return out;
}

// xtics naming configurations at 1..n.
std::string config_tics(const std::vector<std::pair<size_t, const ConfigSummary*>>& cs, const char* axis) {
  std::string t = std::string("set ") + axis + "tics (";
  for (size_t k = 0; k < cs.size(); ++k)
    t += (k ? ", " : "") + gnuplot_quote(column_name(*cs[k].second), 40) + " " + std::to_string(k + 1);
  return t + ")";
}

// Configurations along x: their names as tics, slanted when there are several, steeper and with a
// taller figure when there are many (compare).
void config_xaxis(PlotBuilder& b, const std::vector<std::pair<size_t, const ConfigSummary*>>& cs) {
  b.set(config_tics(cs, "x"));
  if (cs.size() > 6) {
    b.set("set xtics rotate by -50");
    b.height(540);
  } else if (cs.size() > 3) {
    b.set("set xtics rotate by -25");
  }
}

const char* kCommon =
    "set border 3\nset tics nomirror out\nset grid ytics lc rgb '#dddddd' lt 1\nset key below horizontal\n";

std::string colour(const char* c) { return std::string("lc rgb '") + c + "'"; }

Plot headline(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("headline", "Correct, faster and verified, per configuration",
                "Share of units (problem x sample with a reply) with a correct kernel (fast_0), with a best correct "
                "kernel faster than the baseline by its median (fast_1.0, unverified), and with a verified speedup "
                "(speedup interval above 1.0 and, where reverify ran, held there).");
  auto cs = plotted(ss);
  b.set(kCommon);
  b.set("set style fill solid 0.85 border -1");
  b.set("set yrange [0:105]\nset ylabel 'share of units (%)'");
  b.set("set xrange [0.4:" + num(static_cast<double>(cs.size()) + 0.6) + "]");
  config_xaxis(b, cs);
  const std::vector<std::pair<std::string, const char*>> kinds = {{"correct (fast_0)", "#999999"},
                                                                  {"faster than baseline (unverified)", "#e69f00"},
                                                                  {"verified speedups", "#009e73"}};
  const double w = 0.25;
  for (size_t k = 0; k < kinds.size(); ++k) {
    Datablock d{"$headline" + std::to_string(k), {}};
    for (size_t c = 0; c < cs.size(); ++c) {
      const auto& s = *cs[c].second;
      int n = k == 0 ? s.units_correct : k == 1 ? s.faster_unverified : s.verified_speedups;
      d.rows.push_back({static_cast<double>(c + 1) + (static_cast<double>(k) - 1.0) * w, s.pct(n)});
    }
    b.data(d);
    b.clause(d.name + " using 1:2:(" + num(w * 0.9) + ") with boxes " + colour(kinds[k].second), kinds[k].first);
  }
  if (!cs.empty()) b.has_data();
  return b.finish("no unit has a reply yet");
}

Plot fast_p(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("fast_p", "fast_p against p",
                "fast_p: the share of units whose best correct kernel is faster than p times the baseline (speedup > "
                "p; at p = 0 every correct kernel counts, KernelBench's fast_0). The dashed line marks p = 1.0.");
  auto cs = plotted(ss);
  double xmax = 1.1;
  for (const auto& [i, s] : cs)
    for (const auto& o : s->outcomes)
      if (plottable(o)) xmax = std::max(xmax, *o.best_speedup * 1.05);
  b.set(kCommon);
  b.set("set xrange [0:" + num(xmax) + "]\nset yrange [0:1.02]");
  b.set("set xlabel 'p (speedup over the PyTorch baseline)'\nset ylabel 'fast_p (share of units)'");
  b.set("set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2 lc rgb '#555555'");
  for (const auto& [i, s] : cs) {
    std::vector<double> sp;
    for (const auto& o : s->outcomes)
      if (plottable(o)) sp.push_back(*o.best_speedup);
    std::sort(sp.begin(), sp.end());
    const double units = s->units;
    Datablock d{"$fastp" + std::to_string(i), {}};
    d.rows.push_back({0, s->units_correct / units});
    d.rows.push_back({0, static_cast<double>(sp.size()) / units});
    for (size_t k = 0; k < sp.size(); ++k) {
      if (k + 1 < sp.size() && sp[k + 1] == sp[k]) continue;
      d.rows.push_back({sp[k], static_cast<double>(sp.size() - k - 1) / units});
    }
    d.rows.push_back({xmax, d.rows.back()[1]});
    b.data(d);
    b.clause(d.name + " using 1:2 with steps lw 2 " + colour(config_colour(i)), column_name(*s));
    b.has_data();
  }
  return b.finish("no unit has a reply yet");
}

Plot speedups_by_config(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("speedups_by_config", "Best speedup per unit, by configuration",
                "One point per unit with a timed correct kernel: the best kernel's speedup (baseline median time / "
                "kernel median time), log scale, with its interval [baseline p10 / kernel p90, baseline p90 / "
                "kernel p10] as the error bar. Green: verified; orange: faster than the baseline but not verified; "
                "grey: not faster. The dashed line is 1.0 (as fast as the baseline).");
  auto cs = plotted(ss);
  b.set(kCommon);
  b.set("set logscale y\nset ylabel 'speedup (log scale)'");
  b.set("set xrange [0.4:" + num(static_cast<double>(cs.size()) + 0.6) + "]");
  config_xaxis(b, cs);
  struct Group {
    const char* name;
    const char* colour;
    Datablock d;
  };
  std::vector<Group> groups = {{"verified", "#009e73", {"$sp_verified", {}}},
                               {"faster, not verified", "#e69f00", {"$sp_unverified", {}}},
                               {"not faster", "#7f7f7f", {"$sp_slower", {}}}};
  for (size_t c = 0; c < cs.size(); ++c) {
    // Points of one configuration side by side around its tick (at most 9 columns, then again).
    int n = 0, k = 0;
    for (const auto& o : cs[c].second->outcomes) n += plottable(o);
    const int columns = std::min(n, 9);
    for (const auto& o : cs[c].second->outcomes) {
      if (!plottable(o)) continue;
      const auto& j = o.judgement;
      const double x = static_cast<double>(c + 1) + (k % 9 - (columns - 1) / 2.0) * 0.06;
      ++k;
      const double lo = j.interval ? j.interval->low : *o.best_speedup,
                   hi = j.interval ? j.interval->high : *o.best_speedup;
      auto& g = j.verified() ? groups[0] : j.faster() ? groups[1] : groups[2];
      g.d.rows.push_back({x, *o.best_speedup, lo, hi});
    }
  }
  for (auto& g : groups) {
    if (g.d.rows.empty()) continue;
    b.data(g.d);
    b.clause(g.d.name + " using 1:2:3:4 with yerrorbars pt 7 ps 0.9 " + colour(g.colour), g.name);
    b.has_data();
  }
  b.clause("1 with lines dt 2 lw 1.5 lc rgb '#555555'", "1.0 (baseline)");
  return b.finish("no unit has a timed correct kernel yet");
}

Plot speedups_by_category(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("speedups_by_category", "Best speedup per unit, by problem category",
                "The same points as the previous figure grouped by problem category (docs/corpus.md), one colour "
                "per configuration, log scale, with the speedup interval as the error bar. The dashed line is 1.0.");
  auto cs = plotted(ss);
  auto cats = report_categories(ss);
  b.set(kCommon);
  b.set("set logscale y\nset ylabel 'speedup (log scale)'");
  b.set("set xrange [0.4:" + num(static_cast<double>(cats.size()) + 0.6) + "]");
  std::string tics = "set xtics (";
  for (size_t k = 0; k < cats.size(); ++k)
    tics += (k ? ", " : "") + gnuplot_quote(cats[k]) + " " + std::to_string(k + 1);
  b.set(tics + ")");
  const double w = std::min(0.15, 0.7 / std::max<double>(1, static_cast<double>(cs.size())));
  for (size_t c = 0; c < cs.size(); ++c) {
    const auto& [i, s] = cs[c];
    Datablock d{"$cat" + std::to_string(i), {}};
    for (const auto& o : s->outcomes) {
      if (!plottable(o)) continue;
      auto pos = std::find(cats.begin(), cats.end(), o.category) - cats.begin();
      const double x =
          static_cast<double>(pos + 1) + (static_cast<double>(c) - (static_cast<double>(cs.size()) - 1) / 2) * w;
      const auto& iv = o.judgement.interval;
      d.rows.push_back({x, *o.best_speedup, iv ? iv->low : *o.best_speedup, iv ? iv->high : *o.best_speedup});
    }
    if (d.rows.empty()) continue;
    b.data(d);
    b.clause(d.name + " using 1:2:3:4 with yerrorbars pt " + std::to_string(config_point(i)) + " ps 0.9 " +
                 colour(config_colour(i)),
             column_name(*s));
    b.has_data();
  }
  b.clause("1 with lines dt 2 lw 1.5 lc rgb '#555555'", "1.0 (baseline)");
  return b.finish("no unit has a timed correct kernel yet");
}

Plot peak_fraction_by_problem(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("peak_fraction", "Fraction of peak per problem: kernels against the baselines",
                "Per problem, the roofline bound (the minimum bytes moved at the memory peak, or the counted FLOPs at "
                "the compute peak, whichever is longer) divided by the measured median time, in percent: each "
                "configuration's best kernel (its colour; the mean over samples), and the eager and torch.compile "
                "baselines on the same problem (docs/evaluator.md, \"Yardsticks\").");
  auto cs = plotted(ss);
  // Problems with any fraction of peak, in name order; the baselines' fractions are the problem's, whichever
  // unit recorded them.
  std::map<std::string, std::map<std::string, std::vector<double>>> baselines;
  std::set<std::string> names;
  for (const auto& [i, s] : cs)
    for (const auto& o : s->outcomes) {
      if (o.peak_fraction) names.insert(o.problem);
      for (const auto& [bname, f] : o.baseline_peak_fraction) {
        names.insert(o.problem);
        baselines[o.problem][bname].push_back(f);
      }
    }
  const std::vector<std::string> problems(names.begin(), names.end());
  auto mean = [](const std::vector<double>& v) {
    double t = 0;
    for (double x : v) t += x;
    return v.empty() ? 0.0 : t / static_cast<double>(v.size());
  };
  b.set(kCommon);
  b.set("set ylabel 'fraction of peak (%)'\nset yrange [0:*]");
  b.set("set xrange [0.4:" + num(static_cast<double>(problems.size()) + 0.6) + "]");
  std::string tics = "set xtics (";
  for (size_t k = 0; k < problems.size(); ++k)
    tics += (k ? ", " : "") + gnuplot_quote(problems[k], 30) + " " + std::to_string(k + 1);
  b.set(tics + ")");
  if (problems.size() > 3) b.set("set xtics rotate by -35");
  const size_t series = cs.size() + 2;
  const double w = std::min(0.18, 0.8 / static_cast<double>(series));
  auto x_of = [&](size_t problem, size_t k) {
    return static_cast<double>(problem + 1) + (static_cast<double>(k) - (static_cast<double>(series) - 1) / 2) * w;
  };
  for (size_t c = 0; c < cs.size(); ++c) {
    const auto& [i, s] = cs[c];
    std::map<std::string, std::vector<double>> per_problem;
    for (const auto& o : s->outcomes)
      if (o.peak_fraction && std::isfinite(*o.peak_fraction)) per_problem[o.problem].push_back(*o.peak_fraction);
    Datablock d{"$peak" + std::to_string(i), {}};
    for (size_t p = 0; p < problems.size(); ++p)
      if (auto it = per_problem.find(problems[p]); it != per_problem.end())
        d.rows.push_back({x_of(p, c), 100 * mean(it->second)});
    if (d.rows.empty()) continue;
    b.data(d);
    b.clause(d.name + " using 1:2:(" + num(w * 0.9) + ") with boxes fill solid 0.85 " + colour(config_colour(i)),
             column_name(*s));
    b.has_data();
  }
  const std::vector<std::tuple<std::string, std::string, const char*>> kinds = {
      {"eager", "eager PyTorch", "#bbbbbb"}, {"compile", "torch.compile", "#555555"}};
  for (size_t k = 0; k < kinds.size(); ++k) {
    const auto& [bname, label, col] = kinds[k];
    Datablock d{"$peak_" + bname, {}};
    for (size_t p = 0; p < problems.size(); ++p) {
      auto it = baselines.find(problems[p]);
      if (it == baselines.end() || !it->second.count(bname)) continue;
      const double f = mean(it->second.at(bname));
      if (std::isfinite(f)) d.rows.push_back({x_of(p, cs.size() + k), 100 * f});
    }
    if (d.rows.empty()) continue;
    b.data(d);
    b.clause(d.name + " using 1:2:(" + num(w * 0.9) + ") with boxes fill pattern 4 " + colour(col), label);
    b.has_data();
  }
  return b.finish("no correct kernel has a fraction of peak yet (older corpora recorded none)");
}

Plot correct_by_turn(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("correct_by_turn", "Share of units correct by turn",
                "For each turn t of the refinement conversation: the share of units that have a correct kernel at "
                "turn t or earlier (units stop at their first correct kernel unless the configuration asks for "
                "more turns).");
  auto cs = plotted(ss);
  size_t max_turn = 1;
  for (const auto& [i, s] : cs) max_turn = std::max(max_turn, s->correct_by_turn.size());
  b.set(kCommon);
  b.set("set xrange [0.5:" + num(static_cast<double>(max_turn) + 0.5) + "]\nset xtics 1\nset yrange [0:105]");
  b.set("set xlabel 'turn'\nset ylabel 'units correct so far (%)'");
  for (const auto& [i, s] : cs) {
    if (s->correct_by_turn.empty()) continue;
    Datablock d{"$turn" + std::to_string(i), {}};
    for (size_t t = 0; t < s->correct_by_turn.size(); ++t)
      d.rows.push_back({static_cast<double>(t + 1), s->pct(s->correct_by_turn[t])});
    b.data(d);
    b.clause(d.name + " using 1:2 with linespoints lw 2 pt " + std::to_string(config_point(i)) + " " +
                 colour(config_colour(i)),
             column_name(*s));
    b.has_data();
  }
  return b.finish("no unit has a reply yet");
}

Plot per_correct(const std::vector<ConfigSummary>& ss, bool cost) {
  PlotBuilder b(cost ? "cost_per_correct" : "tokens_per_correct",
                cost ? "Cost per correct kernel" : "Tokens per correct kernel",
                cost ? "The configuration's whole spend in USD (every model call, failed ones included, at the "
                       "configuration's prices) divided by its units with a correct kernel."
                     : "All tokens of the configuration (input + output + reasoning, failed calls included) divided by "
                       "its units with a correct kernel.");
  auto cs = plotted(ss);
  b.set(kCommon);
  b.set("set style fill solid 0.85 border -1\nset boxwidth 0.6");
  b.set(std::string("set ylabel '") + (cost ? "USD per correct kernel" : "tokens per correct kernel") + "'");
  b.set("set xrange [0.4:" + num(static_cast<double>(cs.size()) + 0.6) + "]");
  config_xaxis(b, cs);
  double ymax = 0;
  for (const auto& [i, s] : cs) ymax = std::max(ymax, (cost ? s->cost_per_correct : s->tokens_per_correct).value_or(0));
  b.set("set yrange [0:" + num(ymax > 0 ? ymax * 1.15 : 1) + "]");
  for (size_t c = 0; c < cs.size(); ++c) {
    const auto& [i, s] = cs[c];
    const auto v = cost ? s->cost_per_correct : s->tokens_per_correct;
    const std::string x = num(static_cast<double>(c + 1));
    if (!v) {
      b.set("set label " + std::to_string(c + 1) + " 'no correct kernel' at " + x + ", graph 0.05 center");
      continue;
    }
    const std::string text = cost ? money(*v) : std::to_string(std::llround(*v));
    b.set("set label " + std::to_string(c + 1) + " " + gnuplot_quote(text) + " at " + x + ", " +
          num(*v + (ymax > 0 ? ymax : 1) * 0.03) + " center");
    Datablock d{std::string(cost ? "$cost" : "$tokens") + std::to_string(i), {{static_cast<double>(c + 1), *v}}};
    b.data(d);
    b.clause(d.name + " using 1:2 with boxes " + colour(config_colour(i)), column_name(*s));
    b.has_data();
  }
  return b.finish("no configuration has a correct kernel yet");
}

Plot verdicts(const std::vector<ConfigSummary>& ss) {
  PlotBuilder b("verdicts", "Verdicts by kind",
                "Every model reply of a configuration by its verdict (correct, incorrect, compile_error, no_code, "
                "runtime_error, timeout, rejected), plus model calls that failed (provider failure) and kernels "
                "kforge could not judge (harness failure).");
  auto cs = plotted(ss);
  const std::vector<std::pair<std::string, const char*>> kinds = {
      {"correct", "#009e73"},        {"incorrect", "#d55e00"},     {"compile_error", "#e69f00"},
      {"no_code", "#f0e442"},        {"runtime_error", "#cc79a7"}, {"timeout", "#8c564b"},
      {"rejected", "#000000"},       {"other", "#bcbd22"},         {"provider failure", "#56b4e9"},
      {"harness failure", "#7f7f7f"}};
  auto count = [](const ConfigSummary& s, const std::string& kind) -> int {
    if (kind == "correct") return s.evaluations - s.kernel_failures_total();
    if (kind == "provider failure") return s.provider_failures_total();
    if (kind == "harness failure") return s.harness_failures;
    if (kind == "other") {
      int n = 0;
      for (const auto& [v, k] : s.kernel_failures)
        if (v != "incorrect" && v != "compile_error" && v != "no_code" && v != "runtime_error" && v != "timeout" &&
            v != "rejected")
          n += k;
      return n;
    }
    auto it = s.kernel_failures.find(kind);
    return it == s.kernel_failures.end() ? 0 : it->second;
  };
  b.set(kCommon);
  b.set("set grid noytics xtics\nset style fill solid 0.85 border -1");
  b.set("set xlabel 'model replies and failed calls'\nset xrange [0:*]");
  b.set("set yrange [" + num(static_cast<double>(cs.size()) + 0.6) + ":0.4]");  // first configuration on top
  b.set(config_tics(cs, "y"));
  if (cs.size() > 6) b.height(160 + 40 * static_cast<int>(cs.size()));
  int most = 0;
  for (const auto& [i, s] : cs) {
    int n = s->provider_failures_total() + s->harness_failures + s->evaluations;
    most = std::max(most, n);
  }
  if (most <= 10) b.set("set xtics 1");
  std::vector<double> offset(cs.size(), 0);
  for (size_t k = 0; k < kinds.size(); ++k) {
    Datablock d{"$verdict" + std::to_string(k), {}};
    for (size_t c = 0; c < cs.size(); ++c) {
      int n = count(*cs[c].second, kinds[k].first);
      if (n <= 0) continue;
      const double y = static_cast<double>(c + 1), lo = offset[c], hi = offset[c] + n;
      d.rows.push_back({(lo + hi) / 2, y, lo, hi, y - 0.3, y + 0.3});
      offset[c] = hi;
    }
    if (d.rows.empty()) continue;
    b.data(d);
    b.clause(d.name + " using 1:2:3:4:5:6 with boxxyerror " + colour(kinds[k].second), kinds[k].first);
    b.has_data();
  }
  return b.finish("nothing recorded yet");
}

}  // namespace

std::string gnuplot_quote(const std::string& text, size_t max_chars) {
  std::string t = text;
  if (t.size() > max_chars) {
    size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // a UTF-8 boundary
    t = t.substr(0, cut) + "...";
  }
  std::string out = "'";
  for (char ch : t) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\'')
      out += "''";
    else if (c < 0x20 || c == 0x7f)
      out += ' ';
    else
      out += ch;
  }
  return out + "'";
}

// The best-so-far curve on one budget axis: at_budget's geometric mean as a step function of the budget per
// problem, stepping where any search of the configuration got better.
Plot best_so_far(const std::vector<ConfigSummary>& ss, BudgetAxis axis) {
  const std::string name = to_string(axis);
  const char* per = axis == BudgetAxis::evaluations ? "evaluations per problem"
                    : axis == BudgetAxis::tokens    ? "tokens per problem"
                                                    : "USD per problem";
  PlotBuilder b(
      "best_so_far_" + name, std::string("Best speedup reached by ") + per,
      std::string("For each budget B of ") + per +
          ": the geometric mean over the configuration's problems "
          "of the best correct kernel's speedup found within the first B of its search on that problem (every "
          "sample together, in the order the corpus recorded them), a problem without a kernel faster than "
          "the baseline counting 1x. Strategies compare at equal budget where their curves share an x.");
  auto cs = plotted(ss);
  std::vector<const std::vector<SearchCourse>*> all;
  for (const auto& [i, s] : cs) all.push_back(&s->searches);
  const auto levels = budget_levels(all, axis);
  if (levels.empty())
    return b.finish(axis == BudgetAxis::dollars ? "no cost recorded (the configurations' prices are 0)"
                                                : "nothing was spent yet");
  const double largest = levels.back();
  b.set(kCommon);
  // The key as a column under the x label: in a row (kCommon's) it ran into the label.
  b.set("set key below left vertical");
  b.set(std::string("set xlabel '") + per + "'\nset ylabel 'geomean best speedup (x)'");
  b.set("set xrange [0:" + num(largest) + "]");
  if (axis == BudgetAxis::evaluations && largest <= 30) b.set("set xtics 1");
  double ymax = 1;
  for (const auto& [i, s] : cs) {
    std::set<double> xs = {0, largest};
    for (const auto& search : s->searches)
      for (const auto& step : search.improvements) xs.insert(spent(step, axis));
    Datablock d{"$best_" + name + std::to_string(i), {}};
    for (double x : xs) {
      const auto at = at_budget(s->searches, axis, x);
      if (!at.geomean_best || !std::isfinite(*at.geomean_best)) continue;
      d.rows.push_back({x, *at.geomean_best});
      ymax = std::max(ymax, *at.geomean_best);
    }
    if (d.rows.empty()) continue;
    b.data(d);
    b.clause(d.name + " using 1:2 with steps lw 2 " + colour(config_colour(i)),
             column_name(*s) + " (" + s->strategy + ")");
    b.clause(d.name + " using 1:2 with points pt " + std::to_string(config_point(i)) + " " + colour(config_colour(i)),
             "");
    b.has_data();
  }
  b.set("set yrange [0:" + num(ymax * 1.15) + "]");
  return b.finish("no configuration has a search yet");
}

std::vector<Plot> report_plots(const std::vector<ConfigSummary>& ss) {
  return {headline(ss),
          fast_p(ss),
          speedups_by_config(ss),
          speedups_by_category(ss),
          peak_fraction_by_problem(ss),
          correct_by_turn(ss),
          per_correct(ss, true),
          per_correct(ss, false),
          verdicts(ss),
          best_so_far(ss, BudgetAxis::evaluations),
          best_so_far(ss, BudgetAxis::tokens),
          best_so_far(ss, BudgetAxis::dollars)};
}

}  // namespace kf::agent
