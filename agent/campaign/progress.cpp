#include "agent/campaign/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "core/format.h"
#include "core/log.h"

namespace kf::agent {
namespace {

std::string duration_text(double s) {
  if (s < 0 || !std::isfinite(s)) return "?";
  int t = static_cast<int>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%dh%02dm", t / 3600, (t % 3600) / 60);
  else
    std::snprintf(buf, sizeof buf, "%dm%02ds", t / 60, t % 60);
  return buf;
}

}  // namespace

ProgressPrinter::ProgressPrinter(ProgressCounts start, bool line)
    : c_(start), tty_(line && ::isatty(STDERR_FILENO)), started_(std::chrono::steady_clock::now()) {}

ProgressPrinter::~ProgressPrinter() { stop(); }

void ProgressPrinter::start() {
  if (!tty_ || refresher_.joinable()) return;
  refresher_ = std::thread([this] {
    while (!finished_) {
      {
        std::string t = text();
        std::lock_guard lock(print_mu_);
        std::fprintf(stderr, "\r\033[K%s", t.c_str());
        std::fflush(stderr);
      }
      for (int i = 0; i < 10 && !finished_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

void ProgressPrinter::stop() {
  finished_ = true;
  if (refresher_.joinable()) {
    refresher_.join();
    std::fprintf(stderr, "\r\033[K");
  }
}

ProgressCounts ProgressPrinter::counts() {
  std::lock_guard lock(mu_);
  return c_;
}

std::string ProgressPrinter::text() {
  std::lock_guard lock(mu_);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  int remaining = c_.total_units - c_.units_done;
  double eta = done_this_session_ > 0 ? elapsed / done_this_session_ * remaining : -1;
  return "[" + std::to_string(c_.units_done) + "/" + std::to_string(c_.total_units) + " units] " +
         std::to_string(c_.units_correct) + " correct, " + std::to_string(c_.evaluations) + " evaluations, $" +
         format_fixed(c_.cost_usd, 4) + ", " + std::to_string(c_.tokens) + " tokens, elapsed " +
         duration_text(elapsed) + ", ETA " + (remaining == 0 ? "0m00s" : duration_text(eta));
}

void ProgressPrinter::on_record(const corpus::Record& r) {
  using corpus::Kind;
  std::string line;
  {
    std::lock_guard lock(mu_);
    c_.cost_usd += r.cost_usd;
    c_.tokens += r.usage.total();
    if (r.kind == Kind::evaluation) ++c_.evaluations;
    if (r.kind == Kind::unit_done) {
      ++c_.units_done;
      ++done_this_session_;
      if (r.best_turn) ++c_.units_correct;
      return;
    }
    line = r.config + " " + r.problem.name + " s" + std::to_string(r.sample) + " t" + std::to_string(r.turn) + ": ";
    if (r.kind == Kind::evaluation) {
      line += r.verdict_name();
      if (auto sp = r.speedup(); sp && r.correct()) line += " " + format_fixed(*sp, 3) + "x";
    } else if (r.kind == Kind::provider_failure) {
      line += "provider failure (" + (r.error ? r.error->kind + "): " + r.error->message : std::string(")"));
    } else {
      line += "harness failure";
    }
    if (r.evaluator && r.evaluator->gpu_index) line += " [GPU " + std::to_string(*r.evaluator->gpu_index) + "]";
  }
  std::lock_guard lock(print_mu_);
  if (tty_) std::fprintf(stderr, "\r\033[K");
  log::info(line);
}

}  // namespace kf::agent
