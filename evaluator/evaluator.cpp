// Orchestration of one evaluation: oracle (trusted, torch) <-> runner (untrusted, candidate) through the
// transport, with every decision taken by the judge here in the supervisor.
#include "evaluator/evaluator.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/data_dir.h"
#include "core/files.h"
#include "evaluator/compile.h"
#include "evaluator/oracle_client.h"
#include "evaluator/process.h"
#include "evaluator/runner_session.h"
#include "core/log.h"
#include "sandbox/seccomp.h"

namespace fs = std::filesystem;

namespace kf::eval {

namespace {

const char* kVariants[] = {"own", "signed_outliers", "scaled_large", "scaled_small", "outliers"};
// A candidate faster than bytes / copy bandwidth is physically implausible; the margin leaves room for
// kernels that beat a plain copy slightly (measurement spread, better access patterns).
constexpr double kFloorMargin = 0.8;

std::string signal_name(int sig) {
  const char* d = strsignal(sig);
  switch (sig) {
    case SIGSEGV: return std::string("SIGSEGV (") + d + ")";
    case SIGABRT: return std::string("SIGABRT (") + d + ")";
    case SIGBUS: return std::string("SIGBUS (") + d + ")";
    case SIGFPE: return std::string("SIGFPE (") + d + ")";
    case SIGILL: return std::string("SIGILL (") + d + ")";
    case SIGKILL: return std::string("SIGKILL (") + d + ")";
    case SIGXCPU: return std::string("SIGXCPU (") + d + ")";
    default: return "signal " + std::to_string(sig) + " (" + d + ")";
  }
}

OutputStats stats_from(const nlohmann::json& j) {
  OutputStats s;
  s.numel = j.value("numel", int64_t{0});
  s.floating = j.value("floating", true);
  s.rel_l2 = j["rel_l2"].is_number() ? j["rel_l2"].get<double>() : 1e308;
  s.max_abs = j["max_abs"].is_number() ? j["max_abs"].get<double>() : 1e308;
  s.ref_rms = j.value("ref_rms", 0.0);
  s.violations = j.value("violations", int64_t{0});
  s.first_violations = j.value("first_violations", std::vector<int64_t>{});
  s.nan_inf_mismatch = j.value("nan_inf_mismatch", int64_t{0});
  s.unwritten = j.value("unwritten", int64_t{0});
  s.first_unwritten = j.value("first_unwritten", std::vector<int64_t>{});
  s.mismatched_exact = j.value("mismatched_exact", int64_t{0});
  return s;
}

nlohmann::json tolerances_json() {
  nlohmann::json t;
  for (const char* d : {"float32", "float16", "bfloat16", "float64"}) {
    Tolerance tol = tolerance_for(d);
    t[d] = {{"rtol", tol.rtol}, {"atol_scale", tol.atol_scale}, {"rel_l2", tol.rel_l2}};
  }
  return t;
}

void finalize(Verdict& v) {
  bool rejected = false, incorrect = false;
  for (const auto& r : v.reasons) {
    rejected = rejected || r.code.rfind("rejected", 0) == 0;
    incorrect = incorrect || r.code.rfind("incorrect", 0) == 0;
  }
  if (v.verdict == "correct" || v.verdict.empty()) {
    if (rejected) v.verdict = "rejected";
    else if (incorrect) v.verdict = "incorrect";
    else v.verdict = "correct";
  }
  v.correct = v.verdict == "correct";
}

std::string detect_gpu_arch() {
  ChildSpec spec;
  spec.argv = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"};
  spec.env = environment_with({});
  auto r = run_job(spec, 30, 4096);
  if (!r.ok() || r->status != JobResult::Status::exited || r->exit_code != 0) return {};
  std::string s = r->output.substr(0, r->output.find('\n'));
  auto dot = s.find('.');
  if (dot == std::string::npos) return {};
  std::string major = s.substr(0, dot), minor = s.substr(dot + 1);
  while (!minor.empty() && !std::isdigit(static_cast<unsigned char>(minor.back()))) minor.pop_back();
  std::string arch = "sm_" + major + minor;
  // Architecture-specific features (wgmma, tcgen05) need the "a" targets on 9.0 and 10.x.
  if (major == "9" || major == "10") arch += "a";
  return arch;
}

}  // namespace

struct Evaluator::Impl {
  EvaluatorOptions opt;
  std::string oracle_log;
  std::unique_ptr<OracleClient> oracle;
  std::unique_ptr<Compiler> compiler;
  std::mutex compiler_mutex;
  std::mutex eval_mutex;
  std::optional<double> bandwidth;
  std::string compiler_setup_error;
  // "output:trivial" pairs that pass on their own on trial 0 of the evaluation in progress.
  std::set<std::string> base_degenerate;
  // The last prepared trial's tensor shapes (sent with every runner command: they may change between
  // trials) and the bytes its inputs and outputs occupy (the bandwidth floor of the timing that follows).
  nlohmann::json trial_shapes;
  int64_t trial_bytes = 0;
  bool varying_shapes = false;  // the loaded problem's shapes depend on the seed (trial records show them)

  ~Impl() {
    if (oracle) oracle->stop();
    std::error_code ec;
    if (!oracle_log.empty()) fs::remove_all(fs::path(oracle_log).parent_path(), ec);
  }

  Compiler* get_compiler() {
    std::lock_guard lock(compiler_mutex);
    if (compiler) return compiler.get();
    CompilerConfig cc;
    cc.backend = opt.backend;
    cc.cuda_home = opt.cuda_home;
    cc.cache_dir = opt.cache_dir;
    cc.header_dir = fs::path(kforge_header_path()).parent_path().string();
    cc.timeout_s = opt.compile_timeout_s;
    cc.allow_vendor_libs = opt.allow_vendor_libs;
    if (opt.backend == Backend::cuda) {
      if (opt.gpu_arch.empty()) opt.gpu_arch = detect_gpu_arch();
      if (opt.gpu_arch.empty()) {
        compiler_setup_error = "cannot detect the GPU architecture (nvidia-smi found no GPU); pass --gpu-arch, e.g. sm_90a";
        return nullptr;
      }
      cc.gpu_arch = opt.gpu_arch;
    }
    compiler = std::make_unique<Compiler>(cc);
    return compiler.get();
  }

  Result<nlohmann::json> ask(const nlohmann::json& req) { return oracle->request(req, opt.oracle_timeout_s); }
  Result<std::vector<TrivialReport>> trivial_reports(const nlohmann::json& request);
  // The same timing method and settings for the baseline wherever it is timed.
  nlohmann::json baseline_request() const {
    return {{"op", "time_baseline"},
            {"cudnn_tf32", opt.baseline_cudnn_tf32},
            {"warmup", opt.warmup_calls},
            {"min_calls", opt.min_timed_calls},
            {"max_calls", opt.max_timed_calls},
            {"budget_ms", opt.timing_budget_ms}};
  }

  Result<nlohmann::json> load(const std::string& problem) {
    return ask({{"op", "load"}, {"path", fs::absolute(problem).string()}, {"precision", opt.precision},
                {"backend", to_string(opt.backend)}});
  }

  Verdict evaluate(const std::string& problem, const Compiled& compiled);
  void run_trials(Verdict& v, RunnerSession& runner, const nlohmann::json& buffers);
  bool one_trial(Verdict& v, RunnerSession& runner, int trial, uint64_t seed, const std::string& variant,
                 const std::string& label);
  bool runner_failed(Verdict& v, const RunnerEnd& e, const std::string& during);
};

Evaluator::Evaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Evaluator::~Evaluator() = default;
const EvaluatorOptions& Evaluator::options() const { return impl_->opt; }

Result<std::unique_ptr<Evaluator>> Evaluator::create(const EvaluatorOptions& options) {
  signal(SIGPIPE, SIG_IGN);  // a dying oracle or runner must not take the supervisor with it
  // The supervisor holds reference statistics and, in campaigns, API keys: no ptrace attach by jobs.
  if (auto st = sandbox::make_not_dumpable(); !st.ok()) log::warn(st.error().message);
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  auto& o = impl->opt;
  if (o.precision != "fp32" && o.precision != "fp16" && o.precision != "bf16")
    return make_error("usage.precision", "unknown precision '" + o.precision + "': use fp32, fp16 or bf16");
  if (o.trials < 3) return make_error("usage.trials", "--trials must be at least 3 (got " + std::to_string(o.trials) + ")");
  if (o.python.empty()) {
    const char* p = std::getenv("KFORGE_PYTHON");
    o.python = p && *p ? p : "python3";
  }
  if (o.cuda_home.empty()) {
    const char* c = std::getenv("CUDA_HOME");
    o.cuda_home = c && *c ? c : "/usr/local/cuda";
  }
  if (o.cache_dir.empty()) o.cache_dir = default_cache_dir();
  if (o.work_root.empty()) {
    o.work_root = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : fs::temp_directory_path().string();
  }
  if (const char* i = std::getenv("KFORGE_CUDA_RUNNER_ISOLATION"); o.cuda_runner_isolation.empty() && i && *i)
    o.cuda_runner_isolation = i;
  if (o.cuda_runner_isolation.empty()) o.cuda_runner_isolation = to_string(kDefaultCudaIsolation);
  if (auto iso = parse_cuda_isolation(o.cuda_runner_isolation); !iso.ok()) return iso.error();
  if (const char* r = std::getenv("KFORGE_RUNNER"); o.runner_path.empty() && r && *r) o.runner_path = r;
  if (o.runner_path.empty()) {
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec);
    o.runner_path = (self.parent_path() / "kforge-runner").string();
  }
  std::string script = data_path("evaluator/oracle/oracle.py");
  if (!fs::exists(script))
    return make_error("harness.oracle_missing", "the oracle script " + script +
                                                    " is missing (set KFORGE_DATA_DIR to kforge's data folder)");
  std::string tmpl = o.work_root + "/kforge-oracle-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    return make_error("harness.work_root", "cannot create a private folder under " + o.work_root + ": " +
                                               std::strerror(errno));
  impl->oracle_log = tmpl + "/oracle.log";
  impl->oracle = std::make_unique<OracleClient>(o.python, script, impl->oracle_log);
  return std::unique_ptr<Evaluator>(new Evaluator(std::move(impl)));
}

Compiled Evaluator::compile(const std::string& source_path) {
  Compiler* c = impl_->get_compiler();
  if (!c) {
    Compiled out;
    out.source_path = source_path;
    Verdict v;
    v.verdict = "harness_error";
    v.reasons = {{"harness.gpu_arch", impl_->compiler_setup_error}};
    out.failure = v;
    return out;
  }
  return c->compile(source_path);
}

Verdict Evaluator::evaluate_file(const std::string& problem_path, const std::string& candidate_path) {
  Compiled c = compile(candidate_path);
  return evaluate(problem_path, c);
}

Verdict Evaluator::evaluate(const std::string& problem_path, const Compiled& compiled) {
  std::lock_guard lock(impl_->eval_mutex);
  return impl_->evaluate(problem_path, compiled);
}

bool Evaluator::Impl::runner_failed(Verdict& v, const RunnerEnd& e, const std::string& during) {
  if (e.kind == RunnerEnd::Kind::reply) {
    if (e.reply.value("ok", false)) return false;
    std::string code = e.reply.value("code", "runtime_error");
    std::string detail = e.reply.value("detail", "") + " (during " + during + ")";
    if (code.rfind("harness", 0) == 0) {
      v.verdict = "harness_error";
    } else {
      v.verdict = "runtime_error";
    }
    v.reasons.push_back({code, detail});
    return true;
  }
  if (e.kind == RunnerEnd::Kind::timeout) {
    v.verdict = "timeout";
    v.reasons.push_back({"timeout", "the candidate did not finish within " +
                                        std::to_string(static_cast<int>(opt.runner_timeout_s)) + " s (during " +
                                        during + "); its process tree was killed"});
    return true;
  }
  v.verdict = "runtime_error";
  if (e.signal) {
    v.reasons.push_back({"runtime_error.signal", "the runner died from " + signal_name(e.signal) + " during " + during});
  } else {
    v.reasons.push_back({"runtime_error.exit", "the runner exited with code " + std::to_string(e.exit_code) +
                                                   " during " + during + (e.stderr_tail.empty() ? "" : ": " + e.stderr_tail)});
  }
  return true;
}

bool Evaluator::Impl::one_trial(Verdict& v, RunnerSession& runner, int trial, uint64_t seed,
                                const std::string& variant, const std::string& label) {
  auto prep = ask({{"op", "prepare"}, {"seed", seed}, {"variant", variant}});
  if (!prep.ok()) {
    v.verdict = "harness_error";
    v.reasons.push_back({prep.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                         prep.error().message});
    return false;
  }
  trial_shapes = (*prep)["shapes"];
  trial_bytes = prep->value("bytes", int64_t{0});
  auto e = runner.exchange({{"op", "call"}, {"shapes", trial_shapes}});
  if (runner_failed(v, e, label)) return false;
  auto cmp = ask({{"op", "compare"}, {"tolerances", tolerances_json()}});
  if (!cmp.ok()) {
    v.verdict = "harness_error";
    v.reasons.push_back({"harness.oracle", cmp.error().message});
    return false;
  }
  nlohmann::json record{{"trial", trial}, {"label", label}, {"seed", seed}, {"variant", (*cmp)["variant"]}};
  if (varying_shapes) record["shapes"] = trial_shapes;
  record["outputs"] = nlohmann::json::array();
  std::vector<Reason> reasons;
  std::vector<std::string> degenerate;
  for (const auto& o : (*cmp)["outputs"]) {
    std::string where = o.value("name", "output") + " (" + label + ", " + (*cmp)["variant"].get<std::string>() + ")";
    std::string dtype = o.value("dtype", "float32");
    OutputStats st = stats_from(o["stats"]);
    auto r = judge_output(where, dtype, st);
    std::vector<TrivialStats> triv;
    nlohmann::json trivj = nlohmann::json::object();
    for (const auto& t : o["trivial"]) {
      TrivialStats ts{t.value("name", ""), stats_from(t["stats"]),
                      t["distance"].is_number() ? t["distance"].get<double>() : 1e308};
      trivj[ts.name] = {{"rel_l2", ts.stats.rel_l2}, {"distance", ts.distance_to_candidate}};
      const std::string key = o.value("name", "") + ":" + ts.name;
      if (trial == 0 && trivial_passes(dtype, ts.stats)) base_degenerate.insert(key);
      // The sparse trial changes a few elements of trial 0's inputs: a trivial output that is right on
      // trial 0 is nearly right there too, so it cannot be held against the candidate on that trial.
      if ((*cmp)["variant"] == "sparse" && base_degenerate.count(key)) continue;
      triv.push_back(ts);
    }
    auto nt = judge_non_trivial(where, dtype, st, triv, &degenerate);
    // A candidate that IS a trivial output is named as such first.
    reasons.insert(reasons.end(), nt.begin(), nt.end());
    reasons.insert(reasons.end(), r.begin(), r.end());
    double coverage = st.numel ? 1.0 - static_cast<double>(st.unwritten) / static_cast<double>(st.numel) : 1.0;
    record["outputs"].push_back({{"name", o.value("name", "")},
                                 {"dtype", dtype},
                                 {"rel_l2", st.rel_l2},
                                 {"max_abs", st.max_abs},
                                 {"ref_rms", st.ref_rms},
                                 {"violations", st.violations},
                                 {"nan_inf_mismatch", st.nan_inf_mismatch},
                                 {"unwritten", st.unwritten},
                                 {"mismatched_exact", st.mismatched_exact},
                                 {"coverage", coverage},
                                 {"trivial", trivj}});
  }
  for (const auto& m : (*cmp)["inputs_modified"]) {
    reasons.push_back({"rejected.input_modified",
                       "input '" + m.value("name", "") + "' was modified by the candidate (" +
                           std::to_string(m.value("changed", int64_t{0})) + " of " +
                           std::to_string(m.value("numel", int64_t{0})) + " elements, first at flat index " +
                           std::to_string(m.value("first", int64_t{0})) + ") during " + label});
  }
  record["inputs_modified"] = (*cmp)["inputs_modified"];
  for (const auto& d : degenerate) {
    if (std::find(v.flags.begin(), v.flags.end(), "degenerate_problem") == v.flags.end())
      v.flags.push_back("degenerate_problem");
    v.checks["degenerate"].push_back(d + " passes on its own");
  }
  v.checks["trials"].push_back(record);
  v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
  return reasons.empty();
}

Verdict Evaluator::Impl::evaluate(const std::string& problem, const Compiled& compiled) {
  double t0 = now_s();
  base_degenerate.clear();
  Verdict v;
  v.problem = problem;
  v.backend = to_string(opt.backend);
  v.compile_s = compiled.compile_s;
  v.compiler_output = compiled.compiler_output;
  if (compiled.cache_hit) v.flags.push_back("compile_cache_hit");
  if (!compiled.ok()) {
    Verdict f = *compiled.failure;
    f.problem = problem;
    f.backend = v.backend;
    f.compile_s = compiled.compile_s;
    f.flags = v.flags;
    f.correct = false;
    return f;
  }
  v.verdict = "correct";
  v.checks = {{"trials", nlohmann::json::array()}, {"precision", opt.precision}, {"tolerances", tolerances_json()}};

  auto harness = [&](const std::string& code, const std::string& detail) {
    v.verdict = "harness_error";
    v.reasons.push_back({code, detail});
    v.eval_s = now_s() - t0;
    v.correct = false;
    return v;
  };
  auto phase = [&, last = t0](const std::string& name) mutable {
    double t = now_s();
    v.checks["phases_s"][name] = t - last;
    last = t;
  };
  auto loaded = load(problem);
  phase("load");
  if (!loaded.ok())
    return harness(loaded.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle",
                   loaded.error().message);
  v.checks["input_generator"] = (*loaded)["input_generator"];
  varying_shapes = false;
  for (const char* role : {"inputs", "outputs"})
    for (const auto& spec : (*loaded)[role]) varying_shapes = varying_shapes || spec.contains("varying");

  std::string tmpl = opt.work_root + "/kforge-eval-XXXXXX";
  if (!mkdtemp(tmpl.data())) return harness("harness.work_root", "cannot create a private folder under " + opt.work_root);
  std::string job_dir = tmpl;
  struct Cleanup {
    Impl* self;
    std::string dir;
    ~Cleanup() {
      (void)self->ask({{"op", "release"}});
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{this, job_dir};

  // Every seed this evaluation will prepare, so that buffers fit the largest trial of a problem whose
  // shapes depend on the seed (the order of trials below).
  nlohmann::json seeds = nlohmann::json::array();
  for (int k = 0; k < opt.trials; ++k) seeds.push_back(opt.seed + static_cast<uint64_t>(k));
  seeds.push_back(opt.seed + 1000 + static_cast<uint64_t>(opt.trials));
  auto setup = ask({{"op", "setup"}, {"dir", job_dir}, {"seeds", seeds}});
  if (!setup.ok()) return harness("harness.oracle", setup.error().message);
  // The runner sees only its job folder (and the toolchain's libraries): it gets its own copy of the
  // candidate library rather than a view into the compile cache.
  std::string library = job_dir + "/candidate.so";
  {
    std::error_code ec;
    fs::copy_file(compiled.library_path, library, fs::copy_options::overwrite_existing, ec);
    if (ec)
      return harness("harness.job", "cannot copy the candidate library " + compiled.library_path + " into " +
                                        job_dir + ": " + ec.message());
  }
  nlohmann::json job{{"backend", to_string(opt.backend)}, {"library", library}, {"device", 0},
                     {"buffers", (*setup)["buffers"]}};
  if (auto st = write_file_atomic(job_dir + "/job.json", job.dump()); !st.ok())
    return harness("harness.job", st.error().message);

  // An allowlist: nothing of kforge's own environment (API keys, tokens) reaches candidate code.
  std::map<std::string, std::string> env{{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", job_dir}, {"LANG", "C"}};
  RunnerSandbox confinement;
  if (opt.backend == Backend::cuda) {
    confinement.cuda = true;
    confinement.cuda_isolation = *parse_cuda_isolation(opt.cuda_runner_isolation);
    confinement.readonly_paths.push_back(opt.cuda_home);
    std::string ld = opt.cuda_home + "/lib64";
    // The operator's library path (where the GPU machine keeps its CUDA libraries) is trusted input.
    if (const char* p = std::getenv("LD_LIBRARY_PATH"); p && *p) ld = std::string(p) + ":" + ld;
    env["LD_LIBRARY_PATH"] = ld;
    env["CUDA_HOME"] = opt.cuda_home;
    if (const char* d = std::getenv("CUDA_VISIBLE_DEVICES"); d) env["CUDA_VISIBLE_DEVICES"] = d;
  }
  RunnerSession runner;
  if (!fs::exists(opt.runner_path))
    return harness("harness.runner_missing", "kforge-runner not found at " + opt.runner_path);
  if (auto st = runner.start(opt.runner_path, job_dir, env, now_s() + opt.runner_timeout_s, confinement); !st.ok())
    return harness("harness.runner", st.error().message);
  auto ready = runner.exchange(nullptr);
  phase("setup");
  int64_t timed_trial_bytes = 0;
  if (!runner_failed(v, ready, "start-up")) {
    bool ok = true;
    for (int k = 0; k < opt.trials && ok; ++k)
      ok = one_trial(v, runner, k, opt.seed + static_cast<uint64_t>(k), kVariants[k % 5],
                     "trial " + std::to_string(k));
    phase("trials");
    if (ok && opt.time_candidate) {
      timed_trial_bytes = trial_bytes;  // the timing loop runs on the last trial's inputs
      auto tm = runner.exchange({{"op", "time"},
                                 {"warmup", opt.warmup_calls},
                                 {"min_calls", opt.min_timed_calls},
                                 {"max_calls", opt.max_timed_calls},
                                 {"budget_ms", opt.timing_budget_ms},
                                 {"shapes", trial_shapes}});
      if (!runner_failed(v, tm, "the timing loop")) {
        v.checks["timing"] = {{"candidate_events", tm.reply["events"]}, {"candidate_sync", tm.reply["sync"]}};
        v.time_ms = tm.reply["events"].value("median_ms", 0.0);
        phase("timing");
        // Outputs re-validated after the timing loop, with fresh inputs in the same buffers.
        int k = opt.trials;
        ok = one_trial(v, runner, k, opt.seed + 1000 + static_cast<uint64_t>(k),
                       opt.trials < 4 ? "scaled_small" : kVariants[k % 5], "re-validation after timing");
        // Trial 0's inputs again with only a few elements changed: a cache keyed on a sample of the
        // inputs' contents replays a stale answer here.
        if (ok)
          ok = one_trial(v, runner, k + 1, opt.seed, "sparse",
                         "sparse re-validation (trial 0's inputs, a few elements changed)");
        if (ok && opt.backend == Backend::cuda) {
          double ev = *v.time_ms, sync = tm.reply["sync"].value("median_ms", 0.0);
          if (sync > 2 * ev + 0.05)
            v.reasons.push_back({"rejected.unsynchronized_work",
                                 "median event time on the given stream " + std::to_string(ev) +
                                     " ms, but the device-wide synchronised time is " + std::to_string(sync) +
                                     " ms: work escaped the stream"});
        }
      }
    }
  }
  if (v.time_ms) phase("revalidation");
  runner.finish();
  v.checks["runner_tree_empty"] = runner.tree_empty();
  if (!runner.tree_empty()) v.flags.push_back("runner_survivors_killed");

  finalize(v);
  if (v.correct && opt.time_candidate && v.time_ms) {
    const int64_t bytes = timed_trial_bytes;
    v.checks["bytes_moved"] = bytes;
    if (opt.measure_baseline) {
      auto base = ask(baseline_request());
      phase("baseline");
      if (base.ok()) {
        base->erase("ok");
        v.checks["timing"]["baseline"] = *base;
        v.ref_time_ms = base->value("median_ms", 0.0);
        if (*v.time_ms > 0) v.speedup = *v.ref_time_ms / *v.time_ms;
        if (v.speedup && *v.speedup > opt.suspicious_speedup) v.flags.push_back("suspicious_speedup");
      } else {
        v.checks["timing"]["baseline_error"] = base.error().message;
      }
    }
    if (opt.backend == Backend::cuda) {
      if (!bandwidth) {
        auto bw = ask({{"op", "bandwidth"}});
        if (bw.ok() && (*bw)["gbps"].is_number()) bandwidth = (*bw)["gbps"].get<double>();
      }
      if (bandwidth) {
        double floor_ms = static_cast<double>(bytes) / (*bandwidth * 1e9) * 1e3 * kFloorMargin;
        v.checks["timing"]["copy_bandwidth_gbps"] = *bandwidth;
        v.checks["timing"]["floor_ms"] = floor_ms;
        if (*v.time_ms < floor_ms) {
          v.reasons.push_back({"rejected.below_bandwidth_floor",
                               "median " + std::to_string(*v.time_ms) + " ms is below the physical floor " +
                                   std::to_string(floor_ms) + " ms (" + std::to_string(bytes) + " bytes at " +
                                   std::to_string(*bandwidth) + " GB/s, x" + std::to_string(kFloorMargin) + ")"});
          v.verdict = "rejected";
          v.correct = false;
        }
      }
    }
  }
  v.eval_s = now_s() - t0;
  return v;
}

Result<Signature> Evaluator::signature(const std::string& problem_path) {
  std::lock_guard lock(impl_->eval_mutex);
  auto r = impl_->load(problem_path);
  if (!r.ok()) return r.error();
  Signature s;
  s.problem = problem_path;
  s.precision = impl_->opt.precision;
  auto conv = [](const nlohmann::json& a) {
    std::vector<TensorSpec> v;
    for (const auto& t : a)
      v.push_back({t.at("name"), t.at("dtype"), t.at("shape").get<std::vector<int64_t>>(),
                   t.value("varying", std::vector<int>{})});
    return v;
  };
  s.inputs = conv((*r)["inputs"]);
  s.outputs = conv((*r)["outputs"]);
  return s;
}

Result<EnvironmentInfo> Evaluator::environment() {
  std::lock_guard lock(impl_->eval_mutex);
  auto r = impl_->ask({{"op", "hello"}, {"backend", to_string(impl_->opt.backend)}});
  if (!r.ok()) return r.error();
  EnvironmentInfo e;
  e.backend = to_string(impl_->opt.backend);
  e.gpu_name = r->value("gpu_name", "");
  e.gpu_arch = impl_->opt.gpu_arch.empty() ? r->value("gpu_arch", "") : impl_->opt.gpu_arch;
  e.torch_version = r->value("torch", "");
  e.cuda_version = r->value("cuda", "");
  e.python = impl_->opt.python + " (" + r->value("python", "") + ")";
  if (impl_->opt.backend == Backend::cuda) {
    if (!impl_->bandwidth) {
      auto bw = impl_->ask({{"op", "bandwidth"}});
      if (bw.ok() && (*bw)["gbps"].is_number()) impl_->bandwidth = (*bw)["gbps"].get<double>();
    }
    e.copy_bandwidth_gbps = impl_->bandwidth;
  }
  return e;
}

Result<std::vector<TrivialReport>> Evaluator::trivial_stats(const std::string& problem_path, int trial,
                                                            const std::vector<double>& allclose_tolerances) {
  std::lock_guard lock(impl_->eval_mutex);
  auto l = impl_->load(problem_path);
  if (!l.ok()) return l.error();
  return impl_->trivial_reports({{"op", "trivial"},
                                 {"seed", impl_->opt.seed + static_cast<uint64_t>(trial)},
                                 {"variant", kVariants[trial % 5]},
                                 {"tolerances", tolerances_json()},
                                 {"allclose", allclose_tolerances}});
}

Result<std::vector<TrivialReport>> Evaluator::kernelbench_trivial_stats(
    const std::string& problem_path, int trial, int trials, const std::vector<double>& allclose_tolerances) {
  std::lock_guard lock(impl_->eval_mutex);
  auto l = impl_->load(problem_path);
  if (!l.ok()) return l.error();
  return impl_->trivial_reports({{"op", "trivial"},
                                 {"kernelbench_trial", trial},
                                 {"kernelbench_trials", trials},
                                 {"tolerances", tolerances_json()},
                                 {"allclose", allclose_tolerances}});
}

Result<std::vector<TrivialReport>> Evaluator::Impl::trivial_reports(const nlohmann::json& request) {
  auto r = ask(request);
  if (!r.ok()) return r.error();
  std::vector<TrivialReport> out;
  for (const auto& t : (*r)["trivial"]) {
    TrivialReport tr;
    tr.output = t.value("output", "");
    tr.dtype = t.value("dtype", "");
    tr.trivial = t.value("trivial", "");
    tr.stats = stats_from(t["stats"]);
    tr.judge_passes = trivial_passes(tr.dtype, tr.stats);
    for (const auto& a : t["allclose"]) tr.allclose.push_back({a[0].get<double>(), a[1].get<bool>()});
    out.push_back(tr);
  }
  return out;
}

Result<BaselineTiming> Evaluator::time_baseline(const std::string& problem_path) {
  std::lock_guard lock(impl_->eval_mutex);
  auto l = impl_->load(problem_path);
  if (!l.ok()) return l.error();
  auto r = impl_->ask(impl_->baseline_request());
  if (!r.ok()) return r.error();
  BaselineTiming t;
  t.median_ms = r->value("median_ms", 0.0);
  t.p10_ms = r->value("p10_ms", 0.0);
  t.p90_ms = r->value("p90_ms", 0.0);
  t.calls = r->value("calls", 0);
  return t;
}

}  // namespace kf::eval
