// The html report's parts that need no gnuplot: the plotted data (in the scripts), quoting, making
// gnuplot's SVG embeddable, and the page. The browser test (html_report_browser_test.py) renders it.
#include <gtest/gtest.h>

#include "agent/report/report.h"
#include "agent/report/report_html.h"
#include "agent/report/report_plots.h"
#include "corpus/reader.h"

namespace kf::agent {
namespace {

const char* kFixture = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/verified_corpus";

std::vector<ConfigSummary> fixture_summaries() {
  auto c = corpus::load(kFixture);
  EXPECT_TRUE(c.ok());
  auto rule = VerifiedSpeedupRule::for_folder(kFixture);
  EXPECT_TRUE(rule.ok());
  return summarize(*c, *rule);
}

const Plot& find_plot(const std::vector<Plot>& plots, const std::string& id) {
  for (const auto& p : plots)
    if (p.id == id) return p;
  ADD_FAILURE() << "no plot " << id;
  static Plot none;
  return none;
}

TEST(GnuplotQuote, NothingIsSubstitutedInside) {
  EXPECT_EQ(gnuplot_quote("plain"), "'plain'");
  EXPECT_EQ(gnuplot_quote("it's `rm -rf` @macro"), "'it''s `rm -rf` @macro'");
  EXPECT_EQ(gnuplot_quote("a\nb\tc"), "'a b c'");
  // Cut on a UTF-8 boundary: "é" is two bytes.
  EXPECT_EQ(gnuplot_quote("abé", 3), "'ab...'");
}

TEST(ReportPlots, EveryFigureWithItsSeries) {
  auto plots = report_plots(fixture_summaries());
  std::vector<std::string> ids;
  for (const auto& p : plots) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"headline", "fast_p", "speedups_by_config", "speedups_by_category",
                                           "peak_fraction", "correct_by_turn", "cost_per_correct", "tokens_per_correct",
                                           "verdicts", "best_so_far_evaluations", "best_so_far_tokens",
                                           "best_so_far_dollars"}));
  for (const auto& p : plots) {
    // The fixture corpus predates the yardsticks: its verdicts hold no fraction of peak.
    if (p.id == "peak_fraction") {
      EXPECT_TRUE(p.script.empty());
      EXPECT_NE(p.no_data.find("no correct kernel has a fraction of peak"), std::string::npos) << p.no_data;
      continue;
    }
    EXPECT_FALSE(p.script.empty()) << p.id << ": " << p.no_data;
    EXPECT_FALSE(p.definition.empty()) << p.id;
  }
  EXPECT_EQ(find_plot(plots, "fast_p").series, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(find_plot(plots, "speedups_by_config").series,
            (std::vector<std::string>{"verified", "faster, not verified", "not faster", "1.0 (baseline)"}));
  EXPECT_EQ(find_plot(plots, "correct_by_turn").series, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(find_plot(plots, "verdicts").series,
            (std::vector<std::string>{"correct", "incorrect", "compile_error", "no_code", "provider failure"}));
}

TEST(ReportPlots, FastPCurveIsTheHandComputedStepFunction) {
  // alpha: 6 units, 5 correct; timed best speedups 0.8, 1.1, 1.3, 1.5, 2.0.
  // fast_p: 5/6 at p = 0, then 4/6 above 0.8, 3/6 above 1.1, 2/6 above 1.3, 1/6 above 1.5, 0 above 2.0.
  const auto plots = report_plots(fixture_summaries());
  const auto& p = find_plot(plots, "fast_p");
  const auto start = p.script.find("$fastp0 << EOD\n");
  ASSERT_NE(start, std::string::npos) << p.script;
  const auto block = p.script.substr(start, p.script.find("EOD\n", start + 15) - start);
  EXPECT_EQ(block,
            "$fastp0 << EOD\n0 0.833333\n0 0.833333\n0.8 0.666667\n1.1 0.5\n1.3 0.333333\n1.5 0.166667\n"
            "2 0\n3.15 0\n")
      << block;  // the curve runs on to the largest speedup of any configuration (beta's 3.0) x 1.05
}

TEST(ReportPlots, CorrectByTurnAndCostPerCorrect) {
  auto plots = report_plots(fixture_summaries());
  const auto& turns = find_plot(plots, "correct_by_turn").script;
  EXPECT_NE(turns.find("$turn0 << EOD\n1 50\n2 83.3333\n3 83.3333\nEOD"), std::string::npos) << turns;
  EXPECT_NE(turns.find("$turn1 << EOD\n1 100\n2 100\nEOD"), std::string::npos) << turns;
  // alpha: $0.10 over 5 correct units; beta: $0.06 over 2.
  const auto& cost = find_plot(plots, "cost_per_correct").script;
  EXPECT_NE(cost.find("$cost0 << EOD\n1 0.02\nEOD"), std::string::npos) << cost;
  EXPECT_NE(cost.find("$cost1 << EOD\n2 0.03\nEOD"), std::string::npos) << cost;
}

TEST(ReportPlots, PeakFractionPerProblemKernelsAgainstBaselines) {
  ConfigSummary s;
  s.config = "alpha";
  s.units = 2;
  UnitReached a;
  a.problem = "19_ReLU";
  a.peak_fraction = 0.38;
  a.baseline_peak_fraction = {{"eager", 0.71}, {"compile", 0.83}};
  UnitReached b;
  b.problem = "1_Square_matmul";
  b.peak_fraction = 0.5;
  b.baseline_peak_fraction = {{"eager", 0.9}};
  s.outcomes = {a, b};
  const auto plots = report_plots({s});
  const auto& p = find_plot(plots, "peak_fraction");
  ASSERT_FALSE(p.script.empty()) << p.no_data;
  EXPECT_EQ(p.series, (std::vector<std::string>{"alpha", "eager PyTorch", "torch.compile"}));
  // Problems by name at x = 1, 2; three series per problem, 0.18 apart, in percent.
  EXPECT_NE(p.script.find("$peak0 << EOD\n0.82 38\n1.82 50\nEOD"), std::string::npos) << p.script;
  EXPECT_NE(p.script.find("$peak_eager << EOD\n1 71\n2 90\nEOD"), std::string::npos) << p.script;
  EXPECT_NE(p.script.find("$peak_compile << EOD\n1.18 83\nEOD"), std::string::npos) << p.script;
}

TEST(ReportPlots, NoDataIsSaidNotPlotted) {
  auto plots = report_plots({});
  for (const auto& p : plots) {
    EXPECT_TRUE(p.script.empty()) << p.id;
    EXPECT_FALSE(p.no_data.empty()) << p.id;
  }
}

TEST(EmbeddableSvg, PrefixesIdsAndNamesSeries) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<svg width=\"10\">\n<g id=\"gnuplot_canvas\">\n<defs>\n"
      "\t<path id='gpPt1' d='M0,0'/>\n\t<path id='gpPt10' d='M0,0'/>\n</defs>\n"
      "\t<g id=\"gnuplot_plot_1\" ><title>gnuplot_plot_1</title>\n<use xlink:href='#gpPt1' x='1'/>"
      "<use xlink:href='#gpPt10' x='1'/><path filter='url(#gpPt1)'/><text>#gpPt1 is text</text></g>\n"
      "\t<g id=\"gnuplot_plot_2\" ><title>gnuplot_plot_2</title></g>\n</g>\n</svg>\n";
  auto out = embeddable_svg(svg, "f-", {"a <b>", ""});
  EXPECT_EQ(out.rfind("<svg", 0), 0u) << out;
  EXPECT_NE(out.find("id=\"f-gnuplot_canvas\""), std::string::npos) << out;
  EXPECT_NE(out.find("id='f-gpPt10'"), std::string::npos) << out;
  EXPECT_NE(out.find("xlink:href='#f-gpPt1'"), std::string::npos) << out;
  EXPECT_NE(out.find("xlink:href='#f-gpPt10'"), std::string::npos) << out;
  EXPECT_NE(out.find("url(#f-gpPt1)"), std::string::npos) << out;
  EXPECT_NE(out.find("<text>#gpPt1 is text</text>"), std::string::npos) << out;
  EXPECT_NE(out.find("class=\"series\" data-series=\"a &lt;b&gt;\"><title>a &lt;b&gt;</title>"), std::string::npos)
      << out;
  EXPECT_NE(out.find("<g id=\"f-gnuplot_plot_2\" ><title>gnuplot_plot_2</title>"), std::string::npos) << out;
}

TEST(FormatHtml, OnePageWithTablesFiguresAndNoExternalAssets) {
  auto ss = fixture_summaries();
  std::vector<RenderedPlot> plots;
  for (auto& p : report_plots(ss)) plots.push_back({p, p.id == "verdicts" ? "" : "<svg><g id=\"x\"></g></svg>"});
  const std::string title = "kforge report: <dir & co>";
  auto html = format_html(ss, plots, title);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>kforge report: &lt;dir &amp; co&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<td>verified speedups</td><td>1 of 6</td><td>1 of 2</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>faster than baseline (unverified)</td>"), std::string::npos);
  for (const auto& p : plots) EXPECT_NE(html.find("id=\"fig-" + p.plot.id + "\""), std::string::npos) << p.plot.id;
  EXPECT_NE(html.find("No data: "), std::string::npos);  // the figure given no SVG
  for (const char* external : {"<script", "<link", "<img", "src=", "@import", "url(http"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
}

}  // namespace
}  // namespace kf::agent
