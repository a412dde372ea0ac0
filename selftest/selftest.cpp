#include "selftest/selftest.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/data_dir.h"
#include "core/files.h"
#include "evaluator/evaluator.h"

namespace kf::selftest {
namespace fs = std::filesystem;
namespace {

// Paths a contained job must never create on the host (write_outside tries them).
const std::vector<std::string>& forbidden_host_paths() {
  static const std::vector<std::string> p = {"/tmp/kforge-selftest-pwned",     "/dev/shm/kforge-selftest-pwned",
                                             "/var/tmp/kforge-selftest-pwned", "/kforge-selftest-pwned",
                                             "/usr/kforge-selftest-pwned",     "/etc/kforge-selftest-pwned"};
  return p;
}

std::map<std::string, std::string> canary_files() {
  return {{"secret.txt", "kforge self-test secret: a job must never read this\n"},
          {"secret.h", "#define KF_SELFTEST_SECRET 4242\n"},
          {"reference.bin", std::string(4096, '\x42')}};
}

// Held while this self-test owns the canary; released (closed) when it goes out of scope.
class CanaryTurn {
 public:
  static Result<CanaryTurn> wait_for_it(bool progress) {
    const int fd = ::open(kCanaryLock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      return make_error("selftest.canary",
                        std::string("cannot open the self-test lock ") + kCanaryLock + ": " + std::strerror(errno));
    CanaryTurn turn(fd);
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return turn;
    if (progress) std::cerr << "another kforge selftest on this machine holds " << kCanaryDir << "; waiting for it\n";
    while (::flock(fd, LOCK_EX) != 0)
      if (errno != EINTR)
        return make_error("selftest.canary", std::string("cannot lock ") + kCanaryLock + ": " + std::strerror(errno));
    return turn;
  }
  CanaryTurn(CanaryTurn&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  CanaryTurn(const CanaryTurn&) = delete;
  CanaryTurn& operator=(const CanaryTurn&) = delete;
  CanaryTurn& operator=(CanaryTurn&&) = delete;
  ~CanaryTurn() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit CanaryTurn(int fd) : fd_(fd) {}
  int fd_;
};

Status plant_canary() {
  std::error_code ec;
  fs::remove_all(kCanaryDir, ec);
  fs::create_directories(kCanaryDir, ec);
  if (ec) return make_error("selftest.canary", std::string("cannot create ") + kCanaryDir + ": " + ec.message());
  ::chmod(kCanaryDir, 0755);
  for (const auto& [name, body] : canary_files()) {
    const std::string path = std::string(kCanaryDir) + "/" + name;
    std::ofstream(path, std::ios::binary) << body;
    ::chmod(path.c_str(), 0644);  // world-readable on purpose: only the sandbox may keep jobs away
  }
  for (const auto& p : forbidden_host_paths()) fs::remove(p, ec);
  // A secret in kforge's own environment: a job that sees it was given kforge's environment.
  ::setenv("KF_SELFTEST_CANARY_SECRET", "do-not-leak", 1);
  return ok_status();
}

// Returns an empty string when the canary is intact, else what changed.
std::string check_and_remove_canary() {
  std::string problems;
  std::error_code ec;
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(kCanaryDir, ec)) names.insert(e.path().filename().string());
  for (const auto& [name, body] : canary_files()) {
    auto text = read_file(std::string(kCanaryDir) + "/" + name);
    if (!text.ok() || *text != body) problems += name + " changed; ";
    names.erase(name);
  }
  for (const auto& n : names) problems += "a job created " + std::string(kCanaryDir) + "/" + n + "; ";
  for (const auto& p : forbidden_host_paths())
    if (fs::exists(p, ec)) {
      problems += "a job created " + p + "; ";
      fs::remove(p, ec);
    }
  fs::remove_all(kCanaryDir, ec);
  ::unsetenv("KF_SELFTEST_CANARY_SECRET");
  return problems;
}

bool matches_any(const std::string& name, const std::vector<std::string>& needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](const std::string& n) { return name.find(n) != std::string::npos; });
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string abbreviate(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

}  // namespace

int SelftestReport::passed() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const CaseResult& c) { return c.ok; }));
}
int SelftestReport::failed() const {
  return static_cast<int>(
      std::count_if(cases.begin(), cases.end(), [](const CaseResult& c) { return !c.ok && !c.xfail; }));
}
int SelftestReport::xfailed() const {
  return static_cast<int>(
      std::count_if(cases.begin(), cases.end(), [](const CaseResult& c) { return !c.ok && c.xfail; }));
}

std::string SelftestReport::table() const {
  size_t w_name = 4, w_exp = 8, w_got = 3;
  for (const auto& c : cases) {
    w_name = std::max(w_name, c.name.size());
    w_exp = std::max(w_exp, join(c.expected, "|").size());
    w_got = std::max(w_got, c.got.size());
  }
  auto pad = [](const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
  std::ostringstream out;
  out << pad("case", w_name) << "  " << pad("expected", w_exp) << "  " << pad("got", w_got) << "  ok\n";
  for (const auto& c : cases) {
    out << pad(c.name, w_name) << "  " << pad(join(c.expected, "|"), w_exp) << "  " << pad(c.got, w_got) << "  "
        << (c.ok      ? "ok"
            : c.xfail ? "XFAIL"
                      : "FAIL");
    if (!c.ok) out << "  (" << abbreviate(c.note, 160) << ")";
    out << "\n";
  }
  out << "canary: " << (canary_intact ? "intact" : "VIOLATED: " + canary_note) << "\n";
  out << passed() << " passed, " << failed() << " failed, " << xfailed() << " known gaps (xfail) of " << cases.size()
      << " cases on the " << backend << " backend\n";
  return out.str();
}

nlohmann::json SelftestReport::to_json() const {
  nlohmann::json j{{"backend", backend},
                   {"passed", passed()},
                   {"failed", failed()},
                   {"xfailed", xfailed()},
                   {"canary_intact", canary_intact},
                   {"canary_note", canary_note},
                   {"ok", all_ok()},
                   {"cases", nlohmann::json::array()}};
  for (const auto& c : cases)
    j["cases"].push_back({{"case", c.name},
                          {"what", c.what},
                          {"expected", c.expected},
                          {"reason_expected", c.reason_expected},
                          {"got", c.got},
                          {"reasons", c.reasons},
                          {"ok", c.ok},
                          {"xfail", c.xfail},
                          {"note", c.note},
                          {"seconds", c.seconds}});
  return j;
}

Result<SelftestReport> run_selftest(const SelftestOptions& options) {
  if (options.backend != "host" && options.backend != "cuda")
    return make_error("usage.backend", "unknown backend '" + options.backend + "'; use host or cuda");
  const std::string suite = options.suite_dir.empty() ? data_path("tests/adversarial") : options.suite_dir;
  auto text = read_file(suite + "/cases.json");
  if (!text.ok())
    return make_error("selftest.suite", "cannot read " + suite + "/cases.json (" + text.error().message +
                                            "); pass --suite <folder with cases.json>");
  nlohmann::json manifest = nlohmann::json::parse(*text, nullptr, false);
  if (!manifest.is_object() || !manifest["cases"].is_array())
    return make_error("selftest.suite", suite + "/cases.json is not a valid case manifest (needs a \"cases\" array)");

  eval::EvaluatorOptions eo;
  eo.backend = options.backend == "cuda" ? eval::Backend::cuda : eval::Backend::host;
  eo.python = options.python;
  eo.runner_path = options.runner_path.empty() ? eo.runner_path : options.runner_path;
  eo.cache_dir = options.cache_dir;
  eo.work_root = options.work_root;
  eo.runner_timeout_s = options.case_timeout_s;
  eo.compile_timeout_s = 120;
  eo.warmup_rounds = 1;
  eo.min_rounds = 5;
  eo.max_rounds = 20;
  eo.timing_budget_ms = 200;
  eo.measure_baseline = false;
  // Deterministic: every timed round is checked (in evaluations a random share is, docs/evaluator.md), and
  // rounds stay short for the cases that take 20 ms a call.
  eo.check_fraction = 1;
  eo.round_target_ms = 0.1;

  auto turn = CanaryTurn::wait_for_it(options.progress);
  if (!turn.ok()) return turn.error();
  if (auto st = plant_canary(); !st) return st.error();
  auto evaluator = eval::Evaluator::create(eo);
  if (!evaluator.ok()) {
    (void)check_and_remove_canary();
    return evaluator.error();
  }

  SelftestReport report;
  report.backend = options.backend;
  for (const auto& c : manifest["cases"]) {
    if (c.value("backend", "") != options.backend) continue;
    CaseResult r;
    r.name = c.value("name", c.value("file", "?"));
    if (!options.only.empty() && !matches_any(r.name, options.only)) continue;
    if (matches_any(r.name, options.skip)) continue;
    r.what = c.value("what", "");
    if (c["expected"].is_array())
      for (const auto& e : c["expected"]) r.expected.push_back(e.get<std::string>());
    else
      r.expected.push_back(c.value("expected", "correct"));
    r.reason_expected = c.value("reason", "");
    const auto t0 = std::chrono::steady_clock::now();
    eval::Verdict v =
        (*evaluator)->evaluate_file(suite + "/" + c.value("problem", ""), suite + "/" + c.value("file", ""));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.got = eval::to_string(v.kind);
    std::vector<std::string> codes;
    for (const auto& reason : v.reasons) codes.push_back("[" + reason.code + "] " + abbreviate(reason.detail, 120));
    r.reasons = join(codes, "; ");
    const bool verdict_ok = std::find(r.expected.begin(), r.expected.end(), r.got) != r.expected.end();
    bool reason_ok = r.reason_expected.empty();
    for (const auto& reason : v.reasons)
      if (!reason_ok && reason.code.rfind(r.reason_expected, 0) == 0) reason_ok = true;
    bool time_ok = true;
    if (c.contains("min_time_ms") && verdict_ok && v.correct()) {
      const double min_ms = c["min_time_ms"].get<double>();
      time_ok = v.time_ms && *v.time_ms >= min_ms;
      if (!time_ok)
        r.note = "measured " + (v.time_ms ? std::to_string(*v.time_ms) : std::string("no")) + " ms, below the " +
                 std::to_string(min_ms) + " ms the candidate really takes: the timer was fooled";
    }
    bool clean_ok = true;
    if (c.value("clean_text", false)) {
      // Nothing of the candidate's output may carry control characters or escape sequences.
      std::string all = v.compiler_output;
      for (const auto& reason : v.reasons) all += reason.detail;
      for (char ch : all)
        if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f) clean_ok = false;
      if (!clean_ok) r.note = "control characters or escape sequences reached the verdict";
    }
    bool attribution_ok = true;
    if (c.contains("attribution") && c["attribution"].is_string() && verdict_ok && v.correct()) {
      // Whose work a correct kernelbench solution's outputs are: the verdict must say what the case expects.
      const std::string a = v.attribution();
      attribution_ok = a == c["attribution"].get<std::string>();
      if (!attribution_ok)
        r.note = "attribution " + (a.empty() ? std::string("missing") : a) + ", expected " +
                 c["attribution"].get<std::string>();
    }
    r.ok = verdict_ok && reason_ok && time_ok && clean_ok && attribution_ok;
    if (!verdict_ok)
      r.note = "got " + r.got + (r.reasons.empty() ? "" : ": " + r.reasons);
    else if (!reason_ok)
      r.note = "missing reason " + r.reason_expected + (r.reasons.empty() ? "" : "; got " + r.reasons);
    if (!r.ok && c.contains("xfail")) {
      r.xfail = true;
      r.note = "known gap: " + c["xfail"].get<std::string>() + " (" + r.note + ")";
    }
    if (options.progress)
      std::cerr << (r.ok      ? "ok    "
                    : r.xfail ? "xfail "
                              : "FAIL  ")
                << r.name << " -> " << r.got << " (" << static_cast<int>(r.seconds * 10) / 10.0 << " s)\n";
    report.cases.push_back(std::move(r));
  }
  const std::string canary = check_and_remove_canary();
  report.canary_intact = canary.empty();
  report.canary_note = canary;
  return report;
}

}  // namespace kf::selftest
