#include "agent/report/gnuplot.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/child_process.h"
#include "core/files.h"

namespace kf::agent {
namespace fs = std::filesystem;
namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// A private folder removed with everything in it when it goes out of scope.
class TempDir {
 public:
  static Result<TempDir> make() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/kforge-plot.XXXXXX";
    if (!::mkdtemp(tmpl.data()))
      return make_error("report.tmpdir", "cannot create a temporary folder like " + tmpl + " (set TMPDIR)");
    return TempDir(tmpl);
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

}  // namespace

Result<std::string> find_gnuplot(const std::string& requested) {
  const std::string name = requested.empty() ? "gnuplot" : requested;
  const std::string hint = requested.empty()
                               ? "install Debian's gnuplot-nox (apt-get install gnuplot-nox) or pass --gnuplot PATH"
                               : "pass --gnuplot with the path of a gnuplot executable (Debian: gnuplot-nox)";
  if (name.find('/') != std::string::npos) {
    if (executable(name)) return fs::absolute(name).string();
    return make_error("report.gnuplot_missing", "gnuplot '" + name + "' is not an executable file: " + hint);
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
  return make_error("report.gnuplot_missing",
                    "--format html draws its figures with gnuplot, but '" + name + "' is not on PATH: " + hint);
}

Result<std::string> render_svg(const std::string& gnuplot, const Plot& plot, double timeout_s) {
  auto dir = TempDir::make();
  if (!dir) return dir.error();
  const std::string script_file = dir->path() + "/plot.gp", svg_file = dir->path() + "/plot.svg";
  // The folder name is mkdtemp's (letters and digits) under TMPDIR; quote it like any other text.
  std::string script = "set encoding utf8\nset terminal svg size " + std::to_string(plot.width) + "," +
                       std::to_string(plot.height) + " noenhanced font 'sans,11' background '#ffffff'\nset output " +
                       gnuplot_quote(svg_file, 4096) + "\n" + plot.script + "set output\n";
  if (auto st = write_file_atomic(script_file, script); !st) return st.error();
  ChildCommand command;  // stdin is /dev/null
  command.argv = {gnuplot, script_file};
  command.workdir = dir->path();
  auto job = run_captured(command, timeout_s, 64 * 1024);
  if (!job) return job.error();
  const std::string what = "gnuplot (" + gnuplot + ") on the '" + plot.id + "' figure";
  if (job->status == CapturedRun::Status::timeout)
    return make_error("report.gnuplot", what + " did not finish within " + std::to_string(int(timeout_s)) + " s");
  if (job->status != CapturedRun::Status::exited || job->exit_code != 0)
    return make_error("report.gnuplot", what + " failed (exit " + std::to_string(job->exit_code) + "): " + job->output);
  auto svg = read_file(svg_file);
  if (!svg || svg->find("<svg") == std::string::npos)
    return make_error("report.gnuplot",
                      what + " wrote no SVG: does this gnuplot have the svg terminal? " + job->output);
  return *svg;
}

}  // namespace kf::agent
