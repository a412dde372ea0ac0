#include "evaluator/compile.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/child_process.h"
#include "core/files.h"
#include "core/time.h"
#include "evaluator/compile_cache.h"
#include "sandbox/launcher.h"

namespace fs = std::filesystem;

namespace kf::eval {

namespace {
constexpr uintmax_t kMaxLibraryBytes = 64ull << 20;  // a candidate library (and its cache entry) at most
}  // namespace

namespace {

constexpr size_t kOutputCap = 64 * 1024;

Verdict failure_verdict(const std::string& source, VerdictKind kind, std::vector<Reason> reasons,
                        const std::string& output, double compile_s) {
  Verdict v;
  v.problem = "";
  v.kind = kind;
  v.reasons = std::move(reasons);
  v.compiler_output = output;
  v.compile_s = compile_s;
  v.checks.candidate = source;
  return v;
}

}  // namespace

std::string first_error_lines(const std::string& output) {
  std::istringstream in(output);
  std::string line, errors, head;
  int n_err = 0, n_head = 0;
  while (std::getline(in, line)) {
    if (n_head < 10) {
      head += line + "\n";
      ++n_head;
    }
    if (n_err < 10 && line.find("error") != std::string::npos) {
      errors += line + "\n";
      ++n_err;
    }
  }
  return errors.empty() ? head : errors;
}

std::optional<CompileFailure> refuse_library(const std::string& path, bool allow_vendor_libs, const std::string& what) {
  std::error_code size_ec;
  if (const auto size = fs::file_size(path, size_ec); !size_ec && size > kMaxLibraryBytes)
    return CompileFailure{
        VerdictKind::rejected,
        {{"rejected.library_too_large",
          what + " is " + std::to_string(size >> 20) + " MiB, more than the " + std::to_string(kMaxLibraryBytes >> 20) +
              " MiB a candidate may take (large initialised arrays? allocate and fill buffers at run "
              "time instead)"}}};
  auto vendors = vendor_libraries_used(path);
  if (!vendors.ok())
    return CompileFailure{VerdictKind::compile_error, {{"compile_error.bad_library", vendors.error().message}}};
  if (vendors->empty() || allow_vendor_libs) return std::nullopt;
  std::string names;
  for (const auto& v : *vendors) names += (names.empty() ? "" : ", ") + v;
  return CompileFailure{
      VerdictKind::rejected,
      {{"rejected.vendor_library",
        what + " uses vendor libraries (" + names + "), which this evaluation does not allow (--allow-vendor-libs)"}}};
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kforge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kforge";
  return "/tmp/kforge-cache-" + std::to_string(getuid());
}

Compiler::Compiler(CompilerConfig config) : config_(std::move(config)) {}

std::vector<std::string> Compiler::flags() const {
  if (config_.backend == Backend::cuda) {
    std::string arch = config_.gpu_arch.empty() ? "sm_90a" : config_.gpu_arch;
    std::string compute = "compute_" + arch.substr(arch.find('_') + 1);
    return {"-O3",     "-std=c++17", "-gencode=arch=" + compute + ",code=" + arch,
            "-shared", "-Xcompiler", "-fPIC",
            "-cudart", "shared",     "-I" + config_.header_dir};
  }
  return {"-O3", "-std=c++17", "-shared", "-fPIC", "-I" + config_.header_dir};
}

std::string Compiler::toolchain_version() {
  std::lock_guard lock(mutex_);
  if (!toolchain_.empty()) return toolchain_;
  ChildCommand command;
  std::string compiler = config_.backend == Backend::cuda ? config_.cuda_home + "/bin/nvcc" : "g++";
  command.argv = {compiler, "--version"};
  auto r = run_captured(command, 30, 4096);
  toolchain_ = r.ok() ? compiler + "\n" + r->output : compiler + " (version unknown)";
  return toolchain_;
}

Compiled Compiler::compile(const std::string& source_path) {
  Compiled c;
  c.source_path = source_path;
  double t0 = now_s();
  std::string ext = fs::path(source_path).extension().string();
  bool is_cuda = ext == ".cu";
  bool is_host = ext == ".cpp" || ext == ".cc" || ext == ".cxx";
  if ((config_.backend == Backend::cuda && !is_cuda) || (config_.backend == Backend::host && !is_host)) {
    c.failure = failure_verdict(
        source_path, VerdictKind::harness_error,
        {{"usage.candidate_kind", "candidate " + source_path + " does not fit the " + to_string(config_.backend) +
                                      " backend: cuda takes a .cu file, host a .cpp file (either takes a KernelBench "
                                      "solution .py)"}},
        "", 0);
    return c;
  }
  auto source = read_file(source_path);
  if (!source.ok()) {
    c.failure = failure_verdict(
        source_path, VerdictKind::harness_error,
        {{"usage.candidate_unreadable", "cannot read candidate " + source_path + ": " + source.error().message}}, "",
        0);
    return c;
  }
  auto header = read_file(config_.header_dir + "/kforge.h");
  auto fl = flags();
  std::string key_material = *source + '\0';
  for (const auto& f : fl) key_material += f + ' ';
  key_material += '\0' + toolchain_version() + '\0' + (header.ok() ? *header : std::string()) + '\0' +
                  (config_.allow_vendor_libs ? "vendor-ok" : "vendor-no");
  const CompileCacheSlot slot = CompileCache(config_.cache_dir).slot(key_material);
  const fs::path lib = slot.file("candidate.so");

  auto from_entry = [&](const CompileCacheEntry& entry, bool hit) {
    c.cache_hit = hit;
    c.compiler_output = entry.output;
    if (entry.ok())
      c.library_path = lib.string();
    else
      c.failure = failure_verdict(source_path, entry.failure->verdict, entry.failure->reasons, c.compiler_output, 0);
  };

  if (auto entry = slot.lookup({"candidate.so"})) {
    from_entry(*entry, true);
    c.compile_s = now_s() - t0;
    if (c.failure) c.failure->compile_s = c.compile_s;
    return c;
  }

  // Private folder per job: the compiler sees the candidate and the toolchain, nothing of kforge's.
  std::string tmpl = (fs::temp_directory_path() / "kforge-compile-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    c.failure = failure_verdict(
        source_path, VerdictKind::harness_error,
        {{"harness.compile_tmp", "cannot create a private compile folder under " + fs::temp_directory_path().string()}},
        "", 0);
    return c;
  }
  fs::path work = tmpl;
  std::error_code ec;
  std::string src_name = is_cuda ? "candidate.cu" : "candidate.cpp";
  (void)write_file_atomic((work / src_name).string(), *source);
  // The header travels into the job folder, so the compiler needs nothing of kforge's tree.
  if (header.ok()) (void)write_file_atomic((work / "kforge.h").string(), *header);
  sandbox::Spec spec;
  spec.argv = {is_cuda ? config_.cuda_home + "/bin/nvcc" : "g++"};
  for (const auto& f : fl) spec.argv.push_back(f == "-I" + config_.header_dir ? "-I" + work.string() : f);
  spec.argv.insert(spec.argv.end(), {"-o", "candidate.so", src_name});
  // An allowlist: no LD_*, no keys. TMPDIR is left to the sandbox (a private tmpfs).
  spec.env = {{"PATH", (is_cuda ? config_.cuda_home + "/bin:" : std::string()) + "/usr/local/bin:/usr/bin:/bin"},
              {"HOME", work.string()},
              {"LANG", "C"}};
  if (is_cuda) {
    spec.env["CUDA_HOME"] = config_.cuda_home;
    spec.readonly_paths.push_back(config_.cuda_home);
  }
  spec.workdir = work.string();
  spec.profile = sandbox::Profile::compile;
  spec.limits.wall_s = config_.timeout_s;
  spec.limits.cpu_s = config_.timeout_s * 4;
  spec.limits.memory_bytes = 8ull << 30;
  spec.limits.file_size_bytes = 1ull << 30;
  spec.limits.output_bytes = kOutputCap;  // the start is kept: the first errors stay intact
  auto job = sandbox::run(spec);
  CompileCacheEntry entry;
  if (!job.ok()) {
    fs::remove_all(work, ec);
    c.failure = failure_verdict(source_path, VerdictKind::harness_error,
                                {{"harness.compile_launch", job.error().message}}, "", now_s() - t0);
    return c;
  }
  std::string output = job->stdout_text + job->stderr_text;
  if (job->stdout_truncated || job->stderr_truncated) output += "\n[compiler output truncated]\n";
  entry.output = output;
  if (job->status == sandbox::Outcome::Status::timeout) {
    entry.failure = CompileFailure{VerdictKind::compile_error,
                                   {{"compile_error.timeout", "the compiler ran past its time limit (" +
                                                                  std::to_string(static_cast<int>(config_.timeout_s)) +
                                                                  " s wall) and was stopped"}}};
  } else if (job->status == sandbox::Outcome::Status::launch_failed) {
    fs::remove_all(work, ec);
    c.failure = failure_verdict(source_path, VerdictKind::harness_error,
                                {{"harness.compile_launch", "cannot start the compiler: " + job->launch_error}}, "",
                                now_s() - t0);
    return c;
  } else if (output.empty() && !job->memory_limit_hit &&
             (job->status != sandbox::Outcome::Status::exited || job->exit_code != 0)) {
    // A compiler that fails says why; silence means the sandbox could not start it. That is kforge's
    // failure, not the candidate's, so it is neither cached nor reported as a compile error.
    fs::remove_all(work, ec);
    c.failure = failure_verdict(
        source_path, VerdictKind::harness_error,
        {{"harness.compile_sandbox", "the compiler ended without any output (exit " + std::to_string(job->exit_code) +
                                         ", signal " + std::to_string(job->signal) +
                                         "): the sandbox could not run it; retry, and run `kforge selftest` if "
                                         "it persists"}},
        "", now_s() - t0);
    return c;
  } else if (job->status != sandbox::Outcome::Status::exited || job->exit_code != 0 ||
             !fs::exists(work / "candidate.so")) {
    std::string detail = first_error_lines(output);
    if (job->memory_limit_hit) detail = "the compiler ran out of its memory limit\n" + detail;
    entry.failure = CompileFailure{VerdictKind::compile_error, {{"compile_error", detail}}};
  } else {
    // Kept out of the cache (and so off the disk) when too large: a kernel needs no hundreds of MB of data.
    entry.failure = refuse_library((work / "candidate.so").string(), config_.allow_vendor_libs, "the candidate");
  }
  if (entry.ok()) {
    // Several compiles of one source (a campaign's samples) can finish together: the store leaves one whole file.
    if (auto unwritable = slot.store_file(work / "candidate.so", "candidate.so")) {
      fs::remove_all(work, ec);
      c.failure = failure_verdict(source_path, VerdictKind::harness_error, {*unwritable}, output, now_s() - t0);
      return c;
    }
  }
  (void)slot.store_entry(entry);
  fs::remove_all(work, ec);
  from_entry(entry, false);
  c.compile_s = now_s() - t0;
  if (c.failure) c.failure->compile_s = c.compile_s;
  return c;
}

}  // namespace kf::eval
