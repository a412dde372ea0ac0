#pragma once
// Renders report figures with gnuplot's SVG terminal (Debian's gnuplot-nox). gnuplot runs as a plain
// child process on a script kforge wrote (every text in it a single-quoted literal, see
// gnuplot_quote), with a wall-clock limit.
#include <string>

#include "agent/report/report_plots.h"
#include "core/result.h"

namespace kf::agent {

// The gnuplot to run: `requested` when given (a path, or a name looked up on PATH), else `gnuplot` on
// PATH. The error says how to install it or which flag to pass.
Result<std::string> find_gnuplot(const std::string& requested);

// The plot as a standalone SVG document (as gnuplot writes it).
Result<std::string> render_svg(const std::string& gnuplot, const Plot& plot, double timeout_s = 60);

}  // namespace kf::agent
