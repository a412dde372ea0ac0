// Orchestration of one evaluation: oracle (trusted, torch) <-> runner (untrusted, candidate) through the
// transport, with every decision taken by the judge here in the supervisor. This file: setting the
// evaluator up and its public calls; one evaluation is the list of phases in phases/phase_list.cpp.
#include "evaluator/evaluator.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <future>

#include "core/child_process.h"
#include "core/data_dir.h"
#include "core/default_python.h"
#include "core/files.h"
#include "core/log.h"
#include "core/time.h"
#include "evaluator/evaluator_impl.h"
#include "evaluator/text_hygiene.h"
#include "sandbox/seccomp.h"

namespace fs = std::filesystem;

namespace kf::eval {

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
  if (o.trials < 3)
    return make_error("usage.trials", "--trials must be at least 3 (got " + std::to_string(o.trials) + ")");
  if (o.baseline != "eager" && o.baseline != "compile")
    return make_error("usage.baseline", "unknown baseline '" + o.baseline + "': use eager or compile");
  if (o.compile_baseline != "auto" && o.compile_baseline != "on" && o.compile_baseline != "off")
    return make_error("usage.compile_baseline",
                      "unknown compile-baseline setting '" + o.compile_baseline + "': use auto, on or off");
  if (o.compile_mode != "default" && o.compile_mode != "max-autotune")
    return make_error("usage.compile_mode",
                      "unknown torch.compile mode '" + o.compile_mode + "': use default or max-autotune");
  if (o.baseline == "compile" && o.compile_baseline == "off")
    return make_error("usage.baseline", "the primary baseline is compile, but the compile baseline is off");
  if (o.python.empty()) o.python = default_python();
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
    return make_error("harness.oracle_missing",
                      "the oracle script " + script + " is missing (set KFORGE_DATA_DIR to kforge's data folder)");
  auto oracle_dir = sandbox::make_owned_folder(o.work_root, "kforge-oracle");
  if (!oracle_dir) return make_error("harness.work_root", oracle_dir.error().message);
  impl->oracle_log = *oracle_dir + "/oracle.log";
  std::map<std::string, std::string> oracle_env;
  if (!o.cuda_visible_devices.empty()) oracle_env["CUDA_VISIBLE_DEVICES"] = o.cuda_visible_devices;
  // torch.compile's artifacts (the compile baseline) outlive the oracle in kforge's cache, per machine.
  // Absolute: the oracle runs in a private folder of its own.
  if (!std::getenv("TORCHINDUCTOR_CACHE_DIR"))
    oracle_env["TORCHINDUCTOR_CACHE_DIR"] = (fs::absolute(o.cache_dir) / "inductor").string();
  impl->oracle = std::make_unique<OracleClient>(o.python, script, impl->oracle_log, std::move(oracle_env));
  return std::unique_ptr<Evaluator>(new Evaluator(std::move(impl)));
}

Compiled Evaluator::compile(const std::string& source_path) {
  const CandidateKind kind = candidate_kind_of(source_path);
  if (kind == CandidateKind::kernelbench) {
    if (auto* sc = impl_->get_solution_compiler()) return sc->compile(source_path);
  } else if (Compiler* c = impl_->get_compiler()) {
    return c->compile(source_path);
  }
  Compiled out;
  out.kind = kind;
  out.source_path = source_path;
  Verdict v;
  v.candidate_kind = to_string(kind);
  judge_harness_failure(v, {"harness.gpu_arch", impl_->compiler_setup_error});
  out.failure = v;
  return out;
}

Verdict Evaluator::evaluate_file(const std::string& problem_path, const std::string& candidate_path) {
  // A cold `kforge eval` spends seconds in each: python, torch and CUDA starting in the oracle with the
  // problem built, and nvcc. compile() needs nothing of the oracle's, so they overlap; a failed load here is
  // met again, and reported, by evaluate().
  auto compiled = std::async(std::launch::async, [&] { return compile(candidate_path); });
  {
    std::lock_guard lock(impl_->eval_mutex);
    (void)impl_->load(problem_path, candidate_kind_of(candidate_path));
  }
  return evaluate(problem_path, compiled.get());
}

Verdict Evaluator::evaluate(const std::string& problem_path, const Compiled& compiled) {
  std::lock_guard lock(impl_->eval_mutex);
  return impl_->evaluate(problem_path, compiled);
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
                                 {"seed", impl_->opt.seed.value_or(kAuditSeed) + static_cast<uint64_t>(trial)},
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

Result<Roofline> Evaluator::roofline(const std::string& problem_path) {
  std::lock_guard lock(impl_->eval_mutex);
  auto l = impl_->load(problem_path);
  if (!l.ok()) return l.error();
  nlohmann::json seeds = nlohmann::json::array();
  for (int k = 0; k < impl_->opt.trials; ++k)
    seeds.push_back(impl_->opt.seed.value_or(kAuditSeed) + static_cast<uint64_t>(k));
  return impl_->problem_roofline(impl_->problem_key(problem_path), seeds);
}

Result<BaselineTiming> Evaluator::time_baseline(const std::string& problem_path, const std::string& which) {
  if (which != "eager" && which != "compile")
    return make_error("baseline.kind", "unknown baseline '" + which + "' (eager or compile)");
  std::lock_guard lock(impl_->eval_mutex);
  auto l = impl_->load(problem_path);
  if (!l.ok()) return l.error();
  const std::string key = impl_->problem_key(problem_path);
  auto p = impl_->plan(key);
  if (!p.ok()) return p.error();
  BaselineTiming t;
  if (which == "compile") {
    bool cached = false;
    auto c = impl_->compile_reference(key, *p, &cached);
    if (!c.ok()) return c.error();
    if (!c->value("compiled", false))
      return make_error("baseline.compile", "torch.compile could not compile the reference: " +
                                                c->value("error", std::string("no reason given")));
    t.compile_s = c->value("compile_s", 0.0);
  }
  auto r = impl_->baseline(key, *p, false, which);
  if (!r.ok()) return r.error();
  t.median_ms = r->summary.median_ms.value_or(0);
  t.p10_ms = r->summary.p10_ms.value_or(0);
  t.p90_ms = r->summary.p90_ms.value_or(0);
  t.calls = r->summary.calls.value_or(0);
  t.rounds = r->summary.rounds.value_or(0);
  t.noise = r->summary.noise.value_or(0);
  nlohmann::json seeds = nlohmann::json::array();
  for (int k = 0; k < impl_->opt.trials; ++k)
    seeds.push_back(impl_->opt.seed.value_or(kAuditSeed) + static_cast<uint64_t>(k));
  if (!impl_->opt.roofline) return t;
  if (auto rl = impl_->problem_roofline(key, seeds); rl.ok() && rl->error.empty())
    t.peak = fraction_of_peak(rl->work, rl->peaks, t.median_ms, impl_->opt.allow_reduced_precision);
  return t;
}

}  // namespace kf::eval
