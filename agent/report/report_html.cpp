#include "agent/report/report_html.h"

#include <set>
#include <sstream>

#include "core/version.h"

namespace kf::agent {
namespace {

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.sub { color: #666; margin-top: 0; }
.intro { background: #f6f8fa; border-left: 4px solid #0072b2; padding: 0.6em 1em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.8em 0; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr:nth-child(even) td { background: #fafafa; }
td:first-child { font-weight: 600; white-space: nowrap; }
figure.plot { margin: 1.5em 0; padding: 0.5em; border: 1px solid #e4e4e4; border-radius: 4px; }
figure.plot h3 { margin: 0.2em 0 0.4em; font-size: 1.05em; }
figure.plot svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #444; font-size: 0.9em; margin-top: 0.4em; }
.nodata { color: #888; font-style: italic; padding: 2em; }
nav ul { columns: 2; }
code { background: #f0f0f0; padding: 0 0.2em; }
)";

// Escaped text with `code` spans for backquoted parts.
std::string prose(const std::string& text) {
  std::string out, run;
  bool in_code = false;
  for (char c : text) {
    if (c != '`') {
      run += c;
      continue;
    }
    out += html_escape(run) + (in_code ? "</code>" : "<code>");
    run.clear();
    in_code = !in_code;
  }
  out += html_escape(run);
  if (in_code) out += "</code>";
  return out;
}

std::string html_table(const ReportTable& t) {
  std::ostringstream o;
  o << "<div class=\"scroll\"><table>\n<thead><tr>";
  for (const auto& h : t.header) o << "<th>" << html_escape(h) << "</th>";
  o << "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    o << "<tr>";
    for (const auto& cell : row) o << "<td>" << html_escape(cell) << "</td>";
    o << "</tr>\n";
  }
  o << "</tbody></table></div>\n";
  return o.str();
}

bool id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string embeddable_svg(const std::string& svg, const std::string& prefix, const std::vector<std::string>& series) {
  size_t start = svg.find("<svg");
  std::string s = start == std::string::npos ? svg : svg.substr(start);
  // Name the plot-clause groups (gnuplot: <g id="gnuplot_plot_K" ><title>gnuplot_plot_K</title>).
  for (size_t k = 0; k < series.size(); ++k) {
    if (series[k].empty()) continue;
    const std::string id = "gnuplot_plot_" + std::to_string(k + 1);
    const std::string from = "<g id=\"" + id + "\" ><title>" + id + "</title>";
    if (size_t at = s.find(from); at != std::string::npos)
      s.replace(at, from.size(),
                "<g id=\"" + id + "\" class=\"series\" data-series=\"" + html_escape(series[k]) + "\"><title>" +
                    html_escape(series[k]) + "</title>");
  }
  // Every id="X" / id='X', and every reference #X followed by a quote or ')', gets the prefix.
  std::set<std::string> ids;
  for (size_t at = s.find("id="); at != std::string::npos; at = s.find("id=", at + 3)) {
    if (at == 0 || !(s[at - 1] == ' ' || s[at - 1] == '\t' || s[at - 1] == '\n') || at + 3 >= s.size()) continue;
    const char q = s[at + 3];
    if (q != '"' && q != '\'') continue;
    size_t end = s.find(q, at + 4);
    if (end == std::string::npos) break;
    ids.insert(s.substr(at + 4, end - at - 4));
    s.insert(at + 4, prefix);
    at = end + prefix.size();
  }
  std::string out;
  out.reserve(s.size() + 1024);
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] != '#') continue;
    size_t j = i + 1;
    while (j < s.size() && id_char(s[j])) ++j;
    if (j < s.size() && (s[j] == '\'' || s[j] == '"' || s[j] == ')') && ids.count(s.substr(i + 1, j - i - 1)))
      out += prefix;
  }
  return out;
}

std::string format_html(const std::vector<ConfigSummary>& ss, const std::vector<RenderedPlot>& plots,
                        const std::string& title, const ImportReport& imports) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<meta name=\"generator\" content=\"kforge " << kVersion << "\">\n"
    << "<title>" << html_escape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  o << "<h1>" << html_escape(title) << "</h1>\n<p class=\"sub\">kforge " << kVersion << " &middot; " << ss.size()
    << (ss.size() == 1 ? " configuration" : " configurations");
  if (!imports.empty())
    o << " &middot; " << imports.solutions.size() << " imported solutions from " << imports.runs.size()
      << (imports.runs.size() == 1 ? " run" : " runs");
  o << "</p>\n";
  auto import_section = [&] {
    for (const auto& t : import_tables(imports)) o << "<h2>" << html_escape(t.heading) << "</h2>\n" << html_table(t);
    for (const auto& note : import_notes(imports)) o << "<p>" << prose(note) << "</p>\n";
  };
  if (ss.empty()) {
    if (imports.empty())
      o << "<p>No evaluations recorded yet.</p>\n";
    else
      import_section();
    o << "</body>\n</html>\n";
    return o.str();
  }
  o << "<p class=\"intro\">A <b>unit</b> is one conversation of a configuration (model setup) with one problem "
       "(one sample): the model proposes CUDA kernels over several <b>turns</b>, each judged by kforge's verifier. A "
       "<b>speedup</b> is the PyTorch baseline's median time divided by the kernel's median time (above 1.0: faster "
       "than PyTorch). Each unit counts its <b>best</b> correct kernel. A speedup is <b>verified</b> when even its "
       "pessimistic end (baseline p10 / kernel p90 over the timed calls) is above 1.0 and, if <code>kforge "
       "reverify</code> re-measured it, the claim held there.</p>\n";
  o << "<nav><b>Contents</b><ul>\n<li><a href=\"#summary\">Summary tables</a></li>\n";
  for (const auto& p : plots)
    o << "<li><a href=\"#fig-" << html_escape(p.plot.id) << "\">" << html_escape(p.plot.title) << "</a></li>\n";
  o << "</ul></nav>\n";

  auto tables = report_tables(ss);
  o << "<h2 id=\"summary\">Summary</h2>\n" << html_table(tables.front());
  for (const auto& note : report_notes(ss)) o << "<p>" << prose(note) << "</p>\n";
  for (size_t i = 1; i < tables.size(); ++i)
    o << "<h2>" << html_escape(tables[i].heading) << "</h2>\n" << html_table(tables[i]);

  o << "<h2 id=\"figures\">Figures</h2>\n";
  for (const auto& p : plots) {
    const std::string id = html_escape(p.plot.id);
    o << "<figure class=\"plot\" id=\"fig-" << id << "\" data-plot=\"" << id << "\">\n<h3>" << html_escape(p.plot.title)
      << "</h3>\n";
    if (p.svg.empty())
      o << "<div class=\"nodata\">No data: " << html_escape(p.plot.no_data) << ".</div>\n";
    else
      o << embeddable_svg(p.svg, p.plot.id + "-", p.plot.series) << "\n";
    o << "<figcaption>" << prose(p.plot.definition) << "</figcaption>\n</figure>\n";
  }
  if (!imports.empty()) import_section();
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace kf::agent
