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
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "core/data_dir.h"
#include "core/files.h"
#include "evaluator/compile.h"
#include "evaluator/oracle_client.h"
#include "core/child_process.h"
#include "core/time.h"
#include "evaluator/runner_session.h"
#include "evaluator/text_hygiene.h"
#include "evaluator/timing_policy.h"
#include "core/log.h"
#include "sandbox/seccomp.h"

namespace fs = std::filesystem;

namespace kf::eval {

namespace {

const char* kVariants[] = {"own", "signed_outliers", "scaled_large", "scaled_small", "outliers"};
// Runaway limits: a call may take this many times the baseline's time per call, and never less than the
// floor (first calls include lazy initialisation: module loading, handles, workspaces).
constexpr double kCallLimitFactor = 100;
constexpr double kCallLimitFloorS = 10;
constexpr double kStartupLimitS = 60;  // loading the candidate, CUDA context, buffer mapping
constexpr int kMaxSlots = 128;
constexpr size_t kCheckedSlotsPerRound = 2;

// Text from the candidate's side made safe for terminals, the corpus and models (docs/evaluator.md).
void clean_verdict(Verdict& v) {
  for (auto& r : v.reasons) r.detail = clean_text(r.detail, 4000);
  v.compiler_output = clean_text(v.compiler_output, 16384);
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

std::string detect_gpu_arch() {
  ChildCommand command;
  command.argv = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"};
  auto r = run_captured(command, 30, 4096);
  if (!r.ok() || r->status != CapturedRun::Status::exited || r->exit_code != 0) return {};
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
  // Per problem (absolute path + precision): how timing rounds are sized, and the baseline's timing.
  struct Plan {
    double call_ms = 0;  // one reference call, as the oracle measured it
    int slots = 1;       // calls (and buffer slots) per timing round
    int64_t slot_bytes = 0;
  };
  std::map<std::string, Plan> plans;
  std::map<std::string, nlohmann::json> baselines;
  std::string problem_key;
  std::mt19937_64 rng{std::random_device{}()};  // the trusted side's choices; never sent to the runner

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
  TimingPolicyOptions policy_options() const {
    return {opt.warmup_rounds, opt.min_rounds, opt.max_rounds, opt.timing_budget_ms, opt.max_noise};
  }
  Result<Plan> plan();
  Result<nlohmann::json> baseline(const Plan& plan);

  Result<nlohmann::json> load(const std::string& problem) {
    // The file's modification time too: a problem edited under the same path is planned and timed afresh.
    std::error_code ec;
    auto mtime = fs::last_write_time(problem, ec).time_since_epoch().count();
    problem_key = fs::absolute(problem).string() + "|" + opt.precision + "|" + std::to_string(mtime);
    return ask({{"op", "load"}, {"path", fs::absolute(problem).string()}, {"precision", opt.precision},
                {"backend", to_string(opt.backend)}});
  }

  Verdict evaluate(const std::string& problem, const Compiled& compiled);

  // One evaluation's runner and what the judge needs to know about it.
  struct Session {
    RunnerSession runner;
    bool loaded = false;        // the candidate library is being or has been loaded
    double call_limit_s = kCallLimitFloorS;
    std::string call_limit_text;
    std::set<std::string> vendors_seen;
    bool freeze_failed = false;  // the runner could not be stopped between rounds at least once
  };
  // Runs one round (thaw, clock, command, answer, clock, freeze). Fills *ms with the trusted wall time.
  RunnerEnd round(Session& s, const nlohmann::json& order, const nlohmann::json& shapes, double* ms);
  bool runner_failed(Verdict& v, Session& s, const RunnerEnd& e, const std::string& during);
  // Vendor libraries in the (frozen) runner's memory maps; adds rejected.vendor_library once.
  void check_maps(Verdict& v, Session& s);
  bool oracle_failed(Verdict& v, const Error& e);
  // One correctness trial on slot 0: prepare, one call, compare, judge. Returns its reasons (already
  // added to the verdict unless `hold`), or nullopt when the evaluation cannot go on.
  std::optional<std::vector<Reason>> one_trial(Verdict& v, Session& s, int trial, uint64_t seed,
                                               const std::string& variant, const std::string& label,
                                               bool hold = false);
  // Judges one comparison from the oracle; its record goes to checks.trials, or to *record_out when given
  // (timed rounds' checks are recorded only when they fail).
  std::vector<Reason> judge_comparison(Verdict& v, const nlohmann::json& cmp, int trial, const std::string& label,
                                       nlohmann::json* record_out = nullptr);
  // The timing rounds; false when the evaluation cannot go on.
  bool timed_rounds(Verdict& v, Session& s, const Plan& plan);
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
  std::map<std::string, std::string> oracle_env;
  if (!o.cuda_visible_devices.empty()) oracle_env["CUDA_VISIBLE_DEVICES"] = o.cuda_visible_devices;
  impl->oracle = std::make_unique<OracleClient>(o.python, script, impl->oracle_log, std::move(oracle_env));
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

bool Evaluator::Impl::runner_failed(Verdict& v, Session& s, const RunnerEnd& e, const std::string& during) {
  // The reply is the candidate's to write: fields are read by type, never with a throwing accessor.
  if (e.kind == RunnerEnd::Kind::reply) {
    auto ok = e.reply.find("ok");
    if (ok != e.reply.end() && ok->is_boolean() && ok->get<bool>()) return false;
  }
  std::string limit = e.lifetime_limit ? "the runner's lifetime limit of " +
                                             std::to_string(static_cast<int>(opt.runner_timeout_s)) + " s"
                                       : s.call_limit_text;
  judge_runner_failure(v, e, s.loaded, during, limit);
  if (e.kind == RunnerEnd::Kind::timeout) v.checks["limit_hit"] = e.lifetime_limit ? "lifetime" : "call";
  return true;
}

bool Evaluator::Impl::oracle_failed(Verdict& v, const Error& e) {
  if (e.code == "oracle.candidate") {
    // The runner tampered with a shared buffer: the candidate's doing, judged against it.
    v.reasons.push_back({"rejected.buffer_tampered", e.message});
    return true;
  }
  v.verdict = "harness_error";
  v.reasons.push_back({e.code == "oracle.problem" ? "problem.invalid" : "harness.oracle", e.message});
  return true;
}

void Evaluator::Impl::check_maps(Verdict& v, Session& s) {
  if (opt.allow_vendor_libs) return;
  for (const auto& name : vendor_libraries_mapped(s.runner.maps())) {
    if (!s.vendors_seen.insert(name).second) continue;
    v.reasons.push_back({"rejected.vendor_library",
                         "the runner had " + name + " mapped into its memory after the candidate's calls (loaded at "
                         "run time, e.g. with dlopen); vendor libraries are not allowed here (--allow-vendor-libs)"});
  }
}

RunnerEnd Evaluator::Impl::round(Session& s, const nlohmann::json& order, const nlohmann::json& shapes, double* ms) {
  nlohmann::json cmd{{"op", "round"}, {"order", order}};
  if (!shapes.is_null()) cmd["shapes"] = shapes;
  const double limit = s.call_limit_s * std::max<double>(1.0, static_cast<double>(order.size()));
  // Thawed before the clock starts (the thaw's own latency is not the candidate's), frozen after it stops:
  // no thread of the candidate runs while the trusted side prepares or checks.
  s.runner.thaw();
  const double t0 = now_s();
  RunnerEnd e = s.runner.exchange(cmd, t0 + limit);
  const double t1 = now_s();
  if (ms) *ms = (t1 - t0) * 1e3;
  if (e.kind == RunnerEnd::Kind::reply && !s.runner.freeze()) s.freeze_failed = true;
  return e;
}

std::vector<Reason> Evaluator::Impl::judge_comparison(Verdict& v, const nlohmann::json& cmp, int trial,
                                                      const std::string& label, nlohmann::json* record_out) {
  nlohmann::json record{{"trial", trial}, {"label", label}, {"seed", cmp.value("seed", nlohmann::json())}, {"variant", cmp["variant"]}};
  if (varying_shapes) record["shapes"] = trial_shapes;
  record["outputs"] = nlohmann::json::array();
  std::vector<Reason> reasons;
  std::vector<std::string> degenerate;
  for (const auto& o : cmp["outputs"]) {
    std::string where = o.value("name", "output") + " (" + label + ", " + cmp["variant"].get<std::string>() + ")";
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
      if (cmp["variant"] == "sparse" && base_degenerate.count(key)) continue;
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
  for (const auto& m : cmp["inputs_modified"]) {
    reasons.push_back({"rejected.input_modified",
                       "input '" + m.value("name", "") + "' was modified by the candidate (" +
                           std::to_string(m.value("changed", int64_t{0})) + " of " +
                           std::to_string(m.value("numel", int64_t{0})) + " elements, first at flat index " +
                           std::to_string(m.value("first", int64_t{0})) + ") during " + label});
  }
  record["inputs_modified"] = cmp["inputs_modified"];
  for (const auto& d : degenerate) {
    if (std::find(v.flags.begin(), v.flags.end(), "degenerate_problem") == v.flags.end())
      v.flags.push_back("degenerate_problem");
    v.checks["degenerate"].push_back(d + " passes on its own");
  }
  if (record_out) *record_out = std::move(record);
  else v.checks["trials"].push_back(record);
  return reasons;
}

std::optional<std::vector<Reason>> Evaluator::Impl::one_trial(Verdict& v, Session& s, int trial, uint64_t seed,
                                                              const std::string& variant, const std::string& label,
                                                              bool hold) {
  auto prep = ask({{"op", "prepare"}, {"seed", seed}, {"variant", variant}});
  if (!prep.ok()) {
    oracle_failed(v, prep.error());
    return std::nullopt;
  }
  if ((*prep)["variant"] == "skipped") {
    v.checks["trials"].push_back({{"trial", trial}, {"label", label}, {"skipped", "its inputs make the reference non-finite"}});
    return std::vector<Reason>{};
  }
  trial_shapes = (*prep)["shapes"];
  trial_bytes = prep->value("bytes", int64_t{0});
  double ms = 0;
  auto e = round(s, nlohmann::json::array({0}), nlohmann::json::array({trial_shapes}), &ms);
  if (runner_failed(v, s, e, label)) return std::nullopt;
  check_maps(v, s);
  auto cmp = ask({{"op", "compare"}, {"tolerances", tolerances_json()}});
  if (!cmp.ok()) {
    oracle_failed(v, cmp.error());
    return std::nullopt;
  }
  auto reasons = judge_comparison(v, *cmp, trial, label);
  v.checks["trials"].back()["call_ms"] = ms;
  if (!hold) v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
  return reasons;
}

Result<Evaluator::Impl::Plan> Evaluator::Impl::plan() {
  if (auto it = plans.find(problem_key); it != plans.end()) return it->second;
  auto r = ask({{"op", "plan"}});
  if (!r.ok()) return r.error();
  Plan p;
  p.call_ms = std::max(1e-3, r->value("call_ms", 1.0));
  p.slot_bytes = std::max<int64_t>(1, r->value("slot_bytes", int64_t{1}));
  // Enough calls per round that the channel's round trip is a small part of it, as many slots as memory
  // allows (candidate slots, their pristine copies and the baseline's input sets: three per slot).
  const int64_t memory = r->value("slot_memory", int64_t{256} << 20);
  const int by_time = static_cast<int>(std::ceil(opt.round_target_ms / p.call_ms));
  const int64_t by_memory = std::max<int64_t>(1, memory / (3 * p.slot_bytes));
  p.slots = static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(by_time, by_memory), 1, kMaxSlots));
  plans[problem_key] = p;
  return p;
}

Result<nlohmann::json> Evaluator::Impl::baseline(const Plan& p) {
  const std::string key = problem_key + (opt.baseline_cudnn_tf32 ? "|tf32" : "");
  if (auto it = baselines.find(key); it != baselines.end()) return it->second;
  TimingPolicy policy(policy_options());
  while (!policy.done()) {
    auto r = ask({{"op", "baseline_round"}, {"slots", p.slots}, {"cudnn_tf32", opt.baseline_cudnn_tf32}});
    if (!r.ok()) return r.error();
    policy.add(r->value("ms", 0.0), r->value("calls", p.slots));
  }
  nlohmann::json b = policy.summary();
  b["cudnn_tf32"] = opt.baseline_cudnn_tf32;
  b["calls_per_round"] = p.slots;
  baselines[key] = b;
  return b;
}

bool Evaluator::Impl::timed_rounds(Verdict& v, Session& s, const Plan& plan) {
  TimingPolicy policy(policy_options());
  const int k = plan.slots;
  std::vector<int> order(static_cast<size_t>(k));
  std::bernoulli_distribution checked(std::clamp(opt.check_fraction, 0.0, 1.0));
  double events_total = 0, trusted_total = 0;
  int checked_rounds = 0, checked_slots = 0, round_no = 0;
  bool shapes_sent = false;
  nlohmann::json round_log = nlohmann::json::array();
  while (!policy.done()) {
    // Fresh inputs on unpredictable seeds in every slot, outputs poisoned, called in a random order.
    nlohmann::json slots = nlohmann::json::array(), seeds = nlohmann::json::array();
    for (int i = 0; i < k; ++i) {
      slots.push_back(i);
      seeds.push_back(rng() >> 12);
      order[static_cast<size_t>(i)] = i;
    }
    std::shuffle(order.begin(), order.end(), rng);
    auto prep = ask({{"op", "prepare_round"}, {"slots", slots}, {"seeds", seeds}});
    if (!prep.ok()) return !oracle_failed(v, prep.error());
    nlohmann::json shapes;
    if (varying_shapes || !shapes_sent) {
      shapes = nlohmann::json::array();
      for (const auto& sh : (*prep)["shapes"]) shapes.push_back({{"inputs", sh["inputs"]}, {"outputs", sh["outputs"]}});
      shapes_sent = true;
    }
    double ms = 0;
    auto e = round(s, order, shapes, &ms);
    const std::string label = "timed round " + std::to_string(round_no);
    if (runner_failed(v, s, e, label)) return false;
    check_maps(v, s);
    // Chosen after the round, by the trusted side alone: the candidate cannot know which rounds count.
    // A checked round compares a random handful of its slots in full; every slot is scanned for poison.
    const bool check = !policy.warming_up() && checked(rng);
    nlohmann::json check_slots = nlohmann::json::array();
    if (check) {
      std::vector<int> pick(order);
      std::shuffle(pick.begin(), pick.end(), rng);
      for (size_t i = 0; i < pick.size() && i < kCheckedSlotsPerRound; ++i) check_slots.push_back(pick[i]);
    }
    auto rc = ask({{"op", "round_check"}, {"check_slots", check_slots}, {"tolerances", tolerances_json()}});
    if (!rc.ok()) return !oracle_failed(v, rc.error());
    int64_t unwritten = 0;
    for (const auto& u : (*rc)["unwritten"]) unwritten += u[1].get<int64_t>();
    if (unwritten > 0) {
      v.reasons.push_back({"rejected.deferred_work",
                           std::to_string(unwritten) + " output elements still held the poison when " + label +
                               " was reported complete: the work was skipped or deferred past the round"});
      return false;
    }
    std::vector<Reason> reasons;
    for (const auto& c : (*rc)["checks"]) {
      nlohmann::json rec;
      auto r = judge_comparison(v, c, -1, label + " (slot " + std::to_string(c.value("slot", 0)) + ", checked at random)",
                                &rec);
      if (!r.empty()) v.checks["trials"].push_back(rec);
      reasons.insert(reasons.end(), r.begin(), r.end());
      ++checked_slots;
    }
    if (check) ++checked_rounds;
    if (!reasons.empty()) {
      v.reasons.insert(v.reasons.end(), reasons.begin(), reasons.end());
      return false;
    }
    auto ev = e.reply.find("events_ms");
    const double events = ev != e.reply.end() && ev->is_number() ? ev->get<double>() : 0.0;
    if (!policy.warming_up()) {
      events_total += events;
      trusted_total += ms;
    }
    if (round_log.size() < 400) round_log.push_back({ms, events, check});
    policy.add(ms, k);
    ++round_no;
  }
  nlohmann::json t = policy.summary();
  t["calls_per_round"] = k;
  t["checked_rounds"] = checked_rounds;
  t["checked_slots"] = checked_slots;
  t["rounds_log"] = round_log;  // [trusted ms, runner events ms, checked]
  // The channel's own round trip (empty rounds), to show what a round's time holds besides the calls.
  double rtt = 1e9;
  for (int i = 0; i < 3; ++i) {
    double ms = 0;
    auto e = round(s, nlohmann::json::array(), nullptr, &ms);
    if (runner_failed(v, s, e, "an empty round")) return false;
    rtt = std::min(rtt, ms);
  }
  t["channel_rtt_ms"] = rtt;
  t["channel_share"] = rtt / std::max(1e-9, policy.median_ms() * k);
  if (opt.backend == Backend::cuda && trusted_total > 0) {
    const double calls = static_cast<double>(policy.calls());
    t["events_per_call_ms"] = events_total / calls;
    if (auto r = judge_event_disagreement(trusted_total / calls, events_total / calls)) v.reasons.push_back(*r);
  }
  v.checks["timing"]["candidate"] = t;
  v.time_ms = policy.median_ms();
  return true;
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
    clean_verdict(f);
    return f;
  }
  v.verdict = "correct";
  v.checks = {{"trials", nlohmann::json::array()},
              {"precision", opt.precision},
              {"tolerances", tolerances_json()},
              {"reduced_precision_allowed", opt.allow_reduced_precision}};

  auto harness = [&](const std::string& code, const std::string& detail) {
    v.verdict = "harness_error";
    v.reasons.push_back({code, detail});
    v.eval_s = now_s() - t0;
    v.correct = false;
    clean_verdict(v);
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
  seeds.push_back(opt.seed + 500);  // the precision trial
  std::optional<Plan> timing_plan;
  if (opt.time_candidate) {
    auto pl = plan();
    if (!pl.ok()) return harness(pl.error().code == "oracle.problem" ? "problem.invalid" : "harness.oracle", pl.error().message);
    timing_plan = *pl;
    v.checks["timing"]["calls_per_round"] = pl->slots;
  }
  auto setup = ask({{"op", "setup"}, {"dir", job_dir}, {"seeds", seeds}, {"slots", timing_plan ? timing_plan->slots : 1}});
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
    if (!opt.cuda_visible_devices.empty()) env["CUDA_VISIBLE_DEVICES"] = opt.cuda_visible_devices;
    else if (const char* d = std::getenv("CUDA_VISIBLE_DEVICES"); d) env["CUDA_VISIBLE_DEVICES"] = d;
  }
  Session s;
  if (timing_plan) {
    s.call_limit_s = std::max(kCallLimitFloorS, kCallLimitFactor * timing_plan->call_ms / 1e3);
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s (" +
                        std::to_string(static_cast<int>(kCallLimitFactor)) + "x the reference's " +
                        std::to_string(timing_plan->call_ms) + " ms, at least " +
                        std::to_string(static_cast<int>(kCallLimitFloorS)) + " s)";
  } else {
    s.call_limit_text = "the per-call limit of " + std::to_string(s.call_limit_s) + " s";
  }
  v.checks["call_limit_s"] = s.call_limit_s;
  if (!fs::exists(opt.runner_path))
    return harness("harness.runner_missing", "kforge-runner not found at " + opt.runner_path);
  if (auto st = s.runner.start(opt.runner_path, job_dir, env, now_s() + opt.runner_timeout_s, confinement); !st.ok())
    return harness("harness.runner", st.error().message);
  // Two lines at start-up: "loading" (before the candidate is loaded: a failure before it is the
  // harness's) and "ready" (after: from here on the runner may speak for the candidate).
  auto loading = s.runner.exchange(nullptr, now_s() + kStartupLimitS);
  bool up = !runner_failed(v, s, loading, "start-up");
  if (up) {
    s.loaded = true;
    const std::string call_limit_text = s.call_limit_text;
    s.call_limit_text = "the start-up limit of " + std::to_string(static_cast<int>(kStartupLimitS)) + " s";
    auto ready = s.runner.exchange(nullptr, now_s() + kStartupLimitS);
    up = !runner_failed(v, s, ready, "loading the candidate");
    s.call_limit_text = call_limit_text;
    if (up && !s.runner.freeze()) s.freeze_failed = true;
  }
  phase("setup");
  int64_t timed_trial_bytes = 0;
  if (up) {
    bool ok = true;
    for (int k = 0; k < opt.trials && ok; ++k) {
      auto r = one_trial(v, s, k, opt.seed + static_cast<uint64_t>(k), kVariants[k % 5], "trial " + std::to_string(k));
      ok = r && r->empty();
    }
    // fp32 problems are judged at fp32: zero-mean full-mantissa inputs expose TF32/fp16/bf16 operand rounding.
    if (ok && opt.precision == "fp32") {
      auto r = one_trial(v, s, opt.trials, opt.seed + 500, "precision", "precision trial (zero-mean inputs, wide range)", true);
      ok = r.has_value();
      if (r && !r->empty()) {
        if (opt.allow_reduced_precision) {
          v.flags.push_back("reduced_precision");
        } else {
          v.reasons.push_back({"incorrect.reduced_precision",
                               "the candidate passes the regular trials but misses fp32's tolerance on zero-mean "
                               "full-mantissa inputs (" + r->front().detail + "): reduced-precision arithmetic "
                               "(TF32, fp16 or bf16 operands) on an fp32 problem; allowed only with "
                               "--allow-reduced-precision"});
          v.reasons.insert(v.reasons.end(), r->begin(), r->end());
          ok = false;
        }
      }
    }
    phase("trials");
    if (ok && timing_plan) {
      timed_trial_bytes = trial_bytes;
      ok = timed_rounds(v, s, *timing_plan);
      phase("timing");
      if (ok && v.reasons.empty()) {
        // Outputs re-validated after timing, with fresh inputs in the same buffers.
        int k = opt.trials + 1;
        auto r = one_trial(v, s, k, opt.seed + 1000 + static_cast<uint64_t>(k - 1),
                           opt.trials < 4 ? "scaled_small" : kVariants[k % 5], "re-validation after timing");
        ok = r && r->empty();
        // Trial 0's inputs again with only a few elements changed: a cache keyed on a sample of the
        // inputs' contents replays a stale answer here.
        if (ok) one_trial(v, s, k + 1, opt.seed, "sparse", "sparse re-validation (trial 0's inputs, a few elements changed)");
        phase("revalidation");
      }
    }
    check_maps(v, s);
  }
  s.runner.finish();
  v.checks["runner_frozen_between_rounds"] = !s.freeze_failed;
  v.checks["runner_tree_empty"] = s.runner.tree_empty();
  if (!s.runner.tree_empty()) v.flags.push_back("runner_survivors_killed");

  finalize(v);
  if (v.correct && timing_plan && v.time_ms) {
    const int64_t bytes = timed_trial_bytes;
    v.checks["bytes_moved"] = bytes;
    if (opt.measure_baseline) {
      auto base = baseline(*timing_plan);
      phase("baseline");
      if (base.ok()) {
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
        double floor_ms = 0;
        auto r = judge_bandwidth_floor(*v.time_ms, bytes, *bandwidth, &floor_ms);
        v.checks["timing"]["copy_bandwidth_gbps"] = *bandwidth;
        v.checks["timing"]["floor_ms"] = floor_ms;
        if (r) {
          v.reasons.push_back(*r);
          v.verdict = "rejected";
          v.correct = false;
        }
      }
    }
  }
  clean_verdict(v);
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
  auto p = impl_->plan();
  if (!p.ok()) return p.error();
  auto r = impl_->baseline(*p);
  if (!r.ok()) return r.error();
  BaselineTiming t;
  t.median_ms = r->value("median_ms", 0.0);
  t.p10_ms = r->value("p10_ms", 0.0);
  t.p90_ms = r->value("p90_ms", 0.0);
  t.calls = r->value("calls", 0);
  t.rounds = r->value("rounds", 0);
  t.noise = r->value("noise", 0.0);
  return t;
}

}  // namespace kf::eval
