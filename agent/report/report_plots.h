#pragma once
// The figures of the html report, as gnuplot scripts built from the configuration summaries
// (docs/campaigns.md defines every plotted quantity). Rendering is agent/report/gnuplot.h's job; building the
// scripts needs no gnuplot, so the data in them is unit-tested.
#include <string>
#include <vector>

#include "agent/report/report.h"

namespace kf::agent {

struct Plot {
  std::string id;  // element id in the page and file name with --figures (e.g. "fast_p")
  std::string title;
  std::string definition;  // what is plotted, shown under the figure
  // Names of the script's plot clauses in order (gnuplot draws one SVG group per clause); "" for a
  // clause that is drawn without a key entry.
  std::vector<std::string> series;
  std::string script;   // gnuplot commands after `set terminal` and `set output`; "" when no data
  std::string no_data;  // why there is nothing to plot (when script is "")
  int width = 820;
  int height = 420;
};

// In this order: headline counts side by side, fast_p against p, best speedups per configuration, best
// speedups per category, share correct by turn, cost per correct kernel, tokens per correct kernel,
// verdicts by kind, then the best speedup reached by evaluations, tokens and dollars per problem.
std::vector<Plot> report_plots(const std::vector<ConfigSummary>& summaries);

// A gnuplot single-quoted string literal: no substitution happens inside one (no backquotes, no
// macros); quotes are doubled, control characters become spaces, and long text is cut at max_chars.
std::string gnuplot_quote(const std::string& text, size_t max_chars = 60);

}  // namespace kf::agent
