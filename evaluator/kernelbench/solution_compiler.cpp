#include "evaluator/kernelbench/solution_compiler.h"

#include <filesystem>
#include <set>

#include "core/data_dir.h"
#include "core/files.h"
#include "core/time.h"
#include "evaluator/compile_cache.h"
#include "evaluator/judge.h"
#include "evaluator/kernelbench/python_job.h"
#include "evaluator/kernelbench/static_check.h"

namespace fs = std::filesystem;

namespace kf::eval::kernelbench {

namespace {

constexpr size_t kMaxSolutionBytes = 1 << 20;
constexpr size_t kMaxRecordBytes = 16u << 20;
constexpr size_t kMaxExtensionCalls = 32;  // as build_record.py records at most
constexpr double kProbeTimeoutS = 120;

Verdict failure(const std::string& source, VerdictKind kind, std::vector<Reason> reasons, const std::string& output,
                const nlohmann::json& findings) {
  Verdict v;
  v.candidate_kind = "kernelbench";
  v.kind = kind;
  v.reasons = std::move(reasons);
  v.compiler_output = output;
  v.checks.candidate = source;
  if (!findings.is_null()) v.checks.static_check.emplace().findings = findings;
  return v;
}

}  // namespace

SolutionCompiler::SolutionCompiler(SolutionConfig config) : config_(std::move(config)) {}

Result<PythonEnv> SolutionCompiler::python_env() {
  std::lock_guard lock(mutex_);
  if (!env_) {
    const std::string probe = data_path("evaluator/kernelbench/probe.py");
    if (!fs::exists(probe))
      env_ = Result<PythonEnv>(
          make_error("harness.script_missing", "kforge's script " + probe + " is missing (set KFORGE_DATA_DIR)"));
    else
      env_ = probe_python_env(config_.python, probe, kProbeTimeoutS);
  }
  return *env_;
}

Result<ExtensionBuilder*> SolutionCompiler::builder() {
  auto env = python_env();
  if (!env.ok()) return env.error();
  std::lock_guard lock(mutex_);
  if (!builder_) {
    BuildConfig bc;
    bc.backend = config_.backend;
    bc.cuda_home = config_.cuda_home;
    bc.gpu_arch = config_.gpu_arch;
    bc.cache_dir = config_.cache_dir;
    bc.timeout_s = config_.timeout_s;
    bc.allow_vendor_libs = config_.allow_vendor_libs;
    bc.use_pch = config_.use_pch;
    builder_ = std::make_unique<ExtensionBuilder>(bc, *env);
  }
  return builder_.get();
}

Compiled SolutionCompiler::compile(const std::string& source_path) {
  Compiled c;
  c.kind = CandidateKind::kernelbench;
  c.source_path = source_path;
  const double t0 = now_s();
  auto fail = [&](VerdictKind verdict, std::vector<Reason> reasons, const nlohmann::json& findings = {}) {
    c.failure = failure(source_path, verdict, std::move(reasons), c.compiler_output, findings);
    c.compile_s = now_s() - t0;
    c.failure->compile_s = c.compile_s;
    return c;
  };
  auto source = read_file(source_path);
  if (!source.ok())
    return fail(VerdictKind::harness_error, {{"usage.candidate_unreadable",
                                              "cannot read candidate " + source_path + ": " + source.error().message}});
  if (source->size() > kMaxSolutionBytes)
    return fail(VerdictKind::compile_error, {{"compile_error.unsupported", "the solution is over 1 MiB"}});
  auto env = python_env();
  if (!env.ok()) return fail(VerdictKind::harness_error, {{env.error().code, env.error().message}});
  auto b = builder();
  if (!b.ok()) return fail(VerdictKind::harness_error, {{b.error().code, b.error().message}});
  ExtensionBuilder& builder = **b;

  std::string material = "kforge-solution-v1\n" + *source + '\0' + builder.toolchain_identity();
  for (const char* script : {"static_check.py", "build_record.py", "extension_call.py"}) {
    auto text = kernelbench_script(script);
    if (!text.ok()) return fail(VerdictKind::harness_error, {{text.error().code, text.error().message}});
    material += '\0' + *text;
  }
  const CompileCacheSlot slot = CompileCache(config_.cache_dir).slot(material);
  const fs::path copy = slot.file("solution.py");
  // false when the entry names a file that is gone: the solution is built again.
  auto from_entry = [&](const CompileCacheEntry& entry) -> bool {
    c.compiler_output = entry.output;
    c.static_findings = entry.static_findings;
    if (!entry.ok()) {
      fail(entry.failure->verdict, entry.failure->reasons, c.static_findings);
      return true;
    }
    c.extensions.clear();
    for (const auto& e : entry.extensions) {
      if (!fs::exists(e.library)) return false;
      c.extensions.push_back({e.name, e.key, e.library});
    }
    c.library_path = copy.string();
    c.build_log = to_json(entry.extensions);
    c.compile_s = now_s() - t0;
    return true;
  };
  if (auto entry = slot.lookup({"solution.py"})) {
    if (from_entry(*entry)) {
      c.cache_hit = true;
      return c;
    }
    c = Compiled{};
    c.kind = CandidateKind::kernelbench;
    c.source_path = source_path;
  }
  auto store = [&](const CompileCacheEntry& entry) {
    // The copy is the text that was checked and built: the runner gets it, not the file at source_path
    // (which may change meanwhile).
    if (entry.ok() && slot.store_text("solution.py", *source)) return false;
    return slot.store_entry(entry);
  };
  // Failures of the text (static check) and of the build are cached; what importing the solution did is not
  // (it may depend on the machine: memory, time, an installed package).
  auto finish_failure = [&](VerdictKind verdict, const std::vector<Reason>& reasons, const nlohmann::json& findings,
                            bool cache = true) {
    CompileCacheEntry entry;
    entry.failure = CompileFailure{verdict, reasons};
    entry.output = c.compiler_output;
    entry.static_findings = findings;
    if (cache && verdict != VerdictKind::harness_error) store(entry);
    return fail(verdict, reasons, findings);
  };

  // 1. The static check: the solution's text only.
  auto findings = run_static_check(*env, "solution", *source);
  if (!findings.ok()) return fail(VerdictKind::harness_error, {{findings.error().code, findings.error().message}});
  if (auto reasons = judge_static(*findings, config_.backend, *env); !reasons.empty())
    return finish_failure(verdict_for_compile_reason(reasons.front().code), reasons, *findings);

  // 2. The load_inline calls, as the solution makes them when imported (sandboxed: its code runs here).
  std::vector<ExtensionCall> calls;
  const auto& seen = (*findings)["load_inline"];
  if (seen.is_array() && !seen.empty()) {
    auto scratch = ScratchDir::create("kforge-record");
    if (!scratch.ok()) return fail(VerdictKind::harness_error, {{scratch.error().code, scratch.error().message}});
    auto recorder = kernelbench_script("build_record.py");
    auto shared = kernelbench_script("extension_call.py");
    if (!recorder.ok() || !shared.ok())
      return fail(VerdictKind::harness_error,
                  {{"harness.script_missing", "kforge's build recorder scripts are missing"}});
    PythonJob job;
    job.args = {"-I", "-B", "build_record.py", "--solution", "solution.py", "--out", "calls.json"};
    if ((*findings).value("load_inline_in_function", false)) job.args.push_back("--instantiate");
    job.files = {{"build_record.py", *recorder}, {"extension_call.py", *shared}, {"solution.py", *source}};
    job.timeout_s = config_.timeout_s;
    job.output_bytes = 16 << 10;
    job.profile = sandbox::Profile::runner;  // torch reads /dev/urandom when imported
    auto ran = run_python_job(*env, scratch->path(), job);
    if (!ran.ok()) return fail(VerdictKind::harness_error, {{"harness.compile_launch", ran.error().message}});
    if (ran->status == sandbox::Outcome::Status::launch_failed)
      return fail(VerdictKind::harness_error,
                  {{"harness.compile_launch", "cannot start " + env->executable + ": " + ran->launch_error}});
    // The solution could have left a link there to a file of the host's: only a plain file of bounded size
    // is read.
    std::string record_text;
    std::error_code ec;
    const fs::path record_path = scratch->file("calls.json");
    if (fs::is_regular_file(fs::symlink_status(record_path, ec)) && fs::file_size(record_path, ec) <= kMaxRecordBytes &&
        !ec) {
      if (auto t = read_file(record_path.string()); t.ok()) record_text = *t;
    }
    auto record = nlohmann::json::parse(record_text, nullptr, false);
    const std::string tail =
        ran->stderr_text.size() > 2000 ? ran->stderr_text.substr(ran->stderr_text.size() - 2000) : ran->stderr_text;
    if (!record.is_object() || !record["calls"].is_array()) {
      std::string why = ran->status == sandbox::Outcome::Status::timeout ? "ran past its time limit"
                        : ran->memory_limit_hit                          ? "ran out of memory"
                                                : "ended (exit " + std::to_string(ran->exit_code) + ")";
      return finish_failure(VerdictKind::compile_error,
                            {{"compile_error", "importing the solution to record its load_inline calls " + why +
                                                   " without a record: " + tail}},
                            *findings, false);
    }
    if (record["missing_package"].is_string() && !record["missing_package"].get<std::string>().empty()) {
      const std::string pkg = record["missing_package"].get<std::string>().substr(0, 200);
      return finish_failure(VerdictKind::compile_error,
                            {{"compile_error.missing_package",
                              "the solution imports '" + pkg + "', which the runner's python (" + env->executable +
                                  ") does not have: install it there, or run the solution where it is installed"}},
                            *findings, false);
    }
    if (record["import_error"].is_string()) {
      c.compiler_output += "== importing the solution (to record its load_inline calls) stopped at:\n" +
                           record["import_error"].get<std::string>().substr(0, 4000) + "\n";
      if (record["calls"].empty())
        return finish_failure(VerdictKind::compile_error,
                              {{"compile_error", "importing the solution failed before its load_inline calls: " +
                                                     record["import_error"].get<std::string>().substr(0, 1500)}},
                              *findings, false);
    }
    if (record["calls"].size() > kMaxExtensionCalls)
      return finish_failure(
          VerdictKind::compile_error,
          {{"compile_error.unsupported",
            "the solution makes more than " + std::to_string(kMaxExtensionCalls) + " load_inline calls when imported"}},
          *findings, false);
    std::set<std::string> keys;
    for (const auto& r : record["calls"]) {
      auto call = parse_extension_call(r);
      if (!call.ok())
        return finish_failure(VerdictKind::compile_error, {{call.error().code, call.error().message}}, *findings);
      if (keys.insert(call->key).second) calls.push_back(std::move(*call));
    }
  }

  // 3. kforge's own build of every extension.
  CompileCacheEntry entry;
  for (const auto& call : calls) {
    ExtensionBuild built = builder.build(call);
    c.compiler_output += built.output;
    if (!built.ok()) return finish_failure(built.verdict, built.failure, *findings);
    entry.extensions.push_back({call.name, call.key, built.library, built.cache_hit, built.used_pch, built.seconds});
  }
  entry.output = c.compiler_output;
  entry.static_findings = *findings;
  if (!store(entry)) return fail(VerdictKind::harness_error, {slot.unwritable()});
  from_entry(entry);
  return c;
}

}  // namespace kf::eval::kernelbench
