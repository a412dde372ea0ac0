#pragma once
// `kforge report --format html` / `kforge compare --format html`: one self-contained page (no scripts,
// no network, no external assets) with the md report's tables and the figures of report_plots.h,
// rendered to SVG by gnuplot and inlined.
#include <string>
#include <vector>

#include "agent/report/import_report.h"
#include "agent/report/report.h"
#include "agent/report/report_plots.h"

namespace kf::agent {

struct RenderedPlot {
  Plot plot;
  std::string svg;  // gnuplot's SVG document; "" when the plot has no data
};

// Makes a standalone SVG embeddable in a page next to others: drops what precedes <svg (XML prologue),
// prefixes every id and reference to it with `prefix` (figures share one document), and names each
// plot-clause group after its series (class="series", data-series and a <title> tooltip).
std::string embeddable_svg(const std::string& svg, const std::string& prefix, const std::vector<std::string>& series);

// With imported solutions (agent/report/import_report.h), their tables follow the campaign's; a folder of
// imports alone gets those tables only.
std::string format_html(const std::vector<ConfigSummary>& summaries, const std::vector<RenderedPlot>& plots,
                        const std::string& title, const ImportReport& imports = {});

// Text for HTML element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace kf::agent
