#include "evaluator/kernelbench/extension_build.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>

#include "core/child_process.h"
#include "core/files.h"
#include "core/log.h"
#include "core/time.h"
#include "evaluator/compile.h"
#include "evaluator/compile_cache.h"
#include "evaluator/kernelbench/extension_symbols.h"
#include "evaluator/kernelbench/python_job.h"
#include "sandbox/launcher.h"

namespace fs = std::filesystem;

namespace kf::eval::kernelbench {

namespace {

constexpr uintmax_t kMaxLibraryBytes = 64ull << 20;
constexpr size_t kOutputCap = 64 * 1024;
constexpr const char* kPchHeader = "kforge_torch_extension.h";
// Bumped whenever the generated sources or the flags change meaning: old cache entries are then not used.
constexpr const char* kGeneratorVersion = "kforge-extension-v3";

std::string version_of(const std::string& program) {
  ChildCommand command;
  command.argv = {program, "--version"};
  auto r = run_captured(command, 30, 4096);
  return r.ok() ? program + "\n" + r->output : program + " (version unknown)";
}

// Output as the compile stage left it, marked with the file it belongs to.
std::string output_of(const sandbox::Outcome& o, const std::string& label) {
  std::string text = o.stdout_text + o.stderr_text;
  if (o.stdout_truncated || o.stderr_truncated) text += "\n[compiler output truncated]\n";
  return text.empty() ? std::string() : "== " + label + "\n" + text;
}

bool succeeded(const sandbox::Outcome& o) { return o.status == sandbox::Outcome::Status::exited && o.exit_code == 0; }

// The extension's imports as the linker recorded them (evaluator/kernelbench/extension_symbols.h): empty when
// accepted, else why not, one reason per kind naming its symbols.
std::optional<CompileFailure> refuse_imports(const std::string& library, bool allow_vendor_libs,
                                             const std::string& what) {
  auto symbols = undefined_dynamic_symbols(library);
  if (!symbols.ok())
    return CompileFailure{VerdictKind::compile_error, {{"compile_error.bad_library", symbols.error().message}}};
  const auto refused = refused_imports(*symbols, allow_vendor_libs);
  if (refused.empty()) return std::nullopt;
  std::vector<Reason> reasons;
  for (const char* code : {"rejected.torch_fallback", "rejected.vendor_library"}) {
    std::string listed;
    int n = 0;
    for (const auto& r : refused) {
      if (r.code != code || n++ == 4) continue;
      const std::string sym = r.symbol.size() > 160 ? r.symbol.substr(0, 157) + "..." : r.symbol;
      listed += (listed.empty() ? "" : "; ") + sym + " (" + r.why + ")";
    }
    if (!listed.empty())
      reasons.push_back({code, what +
                                   " imports what a solution's own kernel may not use, read from its dynamic "
                                   "symbol table: " +
                                   listed});
  }
  return CompileFailure{VerdictKind::rejected, reasons};
}

void make_read_only(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) ::chmod(e.path().c_str(), 0444);
  ::chmod(dir.c_str(), 0555);
}

}  // namespace

ExtensionBuilder::ExtensionBuilder(BuildConfig config, PythonEnv env)
    : config_(std::move(config)), env_(std::move(env)) {}

const std::string& ExtensionBuilder::toolchain_identity() {
  std::lock_guard lock(mutex_);
  if (identity_.empty()) {
    identity_ = std::string(kGeneratorVersion) + "\n" + to_string(config_.backend) + " " + config_.gpu_arch + "\n" +
                env_.identity() + "\n" + version_of("g++");
    if (config_.backend == Backend::cuda) identity_ += "\n" + version_of(config_.cuda_home + "/bin/nvcc");
    identity_ += config_.allow_vendor_libs ? "\nvendor-ok" : "\nvendor-no";
  }
  return identity_;
}

std::vector<std::string> ExtensionBuilder::common_flags(const ExtensionCall* call) const {
  // As torch's load_inline compiles: the module's name, the extension API, pybind11's ABI as torch's, the
  // C++ ABI as torch's, position-independent C++17. No optimisation level of its own: a solution chooses one
  // with extra_cflags / extra_cuda_cflags, as it would under torch.
  std::vector<std::string> f;
  if (call) f.push_back("-DTORCH_EXTENSION_NAME=" + call->name);
  f.push_back("-DTORCH_API_INCLUDE_EXTENSION_H");
  for (const auto& [k, v] : env_.pybind11) {
    std::string upper;
    for (char c : k) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    f.push_back("-DPYBIND11_" + upper + "=\"" + v + "\"");
  }
  for (const auto& p : env_.include_paths) f.insert(f.end(), {"-isystem", p});
  if (!env_.python_include.empty()) f.insert(f.end(), {"-isystem", env_.python_include});
  if (config_.backend == Backend::cuda) f.insert(f.end(), {"-isystem", config_.cuda_home + "/include"});
  f.push_back("-D_GLIBCXX_USE_CXX11_ABI=" + std::to_string(env_.cxx11_abi));
  return f;
}

std::vector<std::string> ExtensionBuilder::cxx_flags(const ExtensionCall* call) const {
  auto f = common_flags(call);
  f.insert(f.end(), {"-fPIC", "-std=c++17"});
  if (call) {
    f.insert(f.end(), call->extra_cflags.begin(), call->extra_cflags.end());
    for (const auto& p : call->extra_include_paths) f.push_back("-I" + p);
  }
  return f;
}

std::vector<std::string> ExtensionBuilder::cuda_flags(const ExtensionCall& call) const {
  const std::string arch = config_.gpu_arch.empty() ? "sm_90a" : config_.gpu_arch;
  const std::string compute = "compute_" + arch.substr(arch.find('_') + 1);
  auto f = common_flags(&call);
  // torch's own nvcc flags for extensions: solutions are written against them.
  f.insert(f.end(), {"-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                     "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr",
                     "-gencode=arch=" + compute + ",code=" + arch, "--compiler-options", "-fPIC", "-std=c++17"});
  f.insert(f.end(), call.extra_cuda_cflags.begin(), call.extra_cuda_cflags.end());
  for (const auto& p : call.extra_include_paths) f.push_back("-I" + p);
  return f;
}

std::vector<std::string> ExtensionBuilder::link_flags(const ExtensionCall& call) const {
  std::vector<std::string> f;
  for (const auto& p : env_.library_paths) f.push_back("-L" + p);
  f.insert(f.end(), {"-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"});
  if (call.with_cuda)
    f.insert(f.end(), {"-lc10_cuda", "-ltorch_cuda", "-L" + config_.cuda_home + "/lib64", "-lcudart"});
  f.insert(f.end(), call.extra_ldflags.begin(), call.extra_ldflags.end());
  return f;
}

std::string ExtensionBuilder::pch_dir(const std::string& level) {
  std::lock_guard lock(pch_mutex_);
  if (auto it = pch_dirs_.find(level); it != pch_dirs_.end()) return it->second;
  std::string& result = pch_dirs_[level];
  const char* off = std::getenv("KFORGE_KERNELBENCH_PCH");
  if (!config_.use_pch || (off && std::string(off) == "0")) return result;
  auto flags = cxx_flags(nullptr);
  if (!level.empty()) flags.push_back(level);
  std::string material = "kforge-pch-v1\n" + toolchain_identity();
  for (const auto& f : flags) material += "\n" + f;
  const fs::path dir = CompileCache(config_.cache_dir).pch_dir(material);
  std::error_code ec;
  if (fs::exists(dir / (std::string(kPchHeader) + ".gch"), ec)) return result = dir.string();
  // Built in a scratch folder from kforge's own one-line header (no candidate input), then moved into the
  // cache read-only: every later main.cpp is compiled with `-include` of it.
  auto scratch = ScratchDir::create("kforge-pch");
  if (!scratch.ok()) return result;
  if (!write_file_atomic(scratch->file(kPchHeader), "#include <torch/extension.h>\n").ok()) return result;
  sandbox::Spec spec;
  spec.argv = {"g++"};
  spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
  spec.argv.insert(spec.argv.end(), {"-x", "c++-header", kPchHeader, "-o", std::string(kPchHeader) + ".gch"});
  spec.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", scratch->path()}, {"LANG", "C"}};
  spec.readonly_paths = env_.readonly_paths;
  if (config_.backend == Backend::cuda) spec.readonly_paths.push_back(config_.cuda_home);
  spec.workdir = scratch->path();
  spec.profile = sandbox::Profile::compile;
  spec.limits.wall_s = std::max(config_.timeout_s, 600.0);
  spec.limits.cpu_s = spec.limits.wall_s * 2;
  spec.limits.memory_bytes = 8ull << 30;
  spec.limits.file_size_bytes = 4ull << 30;
  spec.limits.output_bytes = kOutputCap;
  const double t0 = now_s();
  auto out = sandbox::run(spec);
  if (!out.ok() || !succeeded(*out)) {
    log::warn("kernelbench: building the precompiled torch/extension.h failed; extensions build without it" +
              (out.ok() ? ": " + out->stderr_text.substr(0, 500) : ": " + out.error().message));
    return result;
  }
  fs::create_directories(dir.parent_path(), ec);
  const fs::path tmp = dir.string() + unique_temp_suffix();
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  fs::copy_file(scratch->file(kPchHeader), tmp / kPchHeader, ec);
  if (!ec) fs::copy_file(scratch->file(std::string(kPchHeader) + ".gch"), tmp / (std::string(kPchHeader) + ".gch"), ec);
  if (!ec) fs::rename(tmp, dir, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);  // another kforge may have put one there first: that one is used
    if (!fs::exists(dir / (std::string(kPchHeader) + ".gch"))) return result;
  } else {
    make_read_only(dir);
  }
  log::info("kernelbench: built the precompiled torch/extension.h" + (level.empty() ? "" : " at " + level) + " in " +
            std::to_string(now_s() - t0) + " s");
  return result = dir.string();
}

ExtensionBuild ExtensionBuilder::build(const ExtensionCall& call) {
  ExtensionBuild b;
  const double t0 = now_s();
  const CompileCacheSlot slot =
      CompileCache(config_.cache_dir)
          .slot(std::string(kGeneratorVersion) + '\0' + call.key + '\0' + toolchain_identity());
  const fs::path lib = slot.file(call.name + ".so");
  auto from_entry = [&](const CompileCacheEntry& entry) {
    b.output = entry.output;
    b.used_pch = entry.used_pch;
    if (entry.ok()) {
      b.library = lib.string();
      return;
    }
    b.verdict = entry.failure->verdict;
    b.failure = entry.failure->reasons;
  };
  if (auto entry = slot.lookup({call.name + ".so"})) {
    from_entry(*entry);
    b.cache_hit = true;
    b.seconds = now_s() - t0;
    return b;
  }
  auto harness = [&](const std::string& code, const std::string& detail) {
    b.verdict = VerdictKind::harness_error;
    b.failure = {{code, detail}};
    b.seconds = now_s() - t0;
    return b;
  };
  if (call.with_cuda && config_.backend != Backend::cuda) {
    b.verdict = VerdictKind::compile_error;
    b.failure = {{"compile_error.unsupported",
                  "load_inline('" + call.name + "') is built with CUDA (with_cuda), which needs the cuda backend"}};
    return b;
  }
  auto scratch = ScratchDir::create("kforge-ext");
  if (!scratch.ok()) return harness("harness.compile_tmp", scratch.error().message);
  const bool has_cuda = !call.cuda_sources.empty();
  if (!write_file_atomic(scratch->file("main.cpp"), call.main_cpp()).ok() ||
      (has_cuda && !write_file_atomic(scratch->file("cuda.cu"), call.cuda_cu()).ok()))
    return harness("harness.compile_tmp", "cannot write the extension's sources into " + scratch->path());

  // The optimisation level the solution asks for (the last one wins, as on g++'s command line).
  std::string level;
  for (const auto& f : call.extra_cflags)
    if (f == "-O0" || f == "-O1" || f == "-O2" || f == "-O3" || f == "-Os") level = f;
  const std::string pch = pch_dir(level);
  auto job_spec = [&](std::vector<std::string> argv) {
    sandbox::Spec spec;
    spec.argv = std::move(argv);
    spec.env = {{"PATH", (config_.backend == Backend::cuda ? config_.cuda_home + "/bin:" : std::string()) +
                             "/usr/local/bin:/usr/bin:/bin"},
                {"HOME", scratch->path()},
                {"LANG", "C"}};
    spec.readonly_paths = env_.readonly_paths;
    if (!pch.empty()) spec.readonly_paths.push_back(pch);
    if (config_.backend == Backend::cuda) {
      spec.env["CUDA_HOME"] = config_.cuda_home;
      spec.readonly_paths.push_back(config_.cuda_home);
    }
    spec.workdir = scratch->path();
    spec.profile = sandbox::Profile::compile;
    spec.limits.wall_s = config_.timeout_s;
    spec.limits.cpu_s = config_.timeout_s * 4;
    spec.limits.memory_bytes = 8ull << 30;
    spec.limits.file_size_bytes = 1ull << 30;
    spec.limits.output_bytes = kOutputCap;
    return spec;
  };
  std::vector<std::string> main_argv = {"g++"};
  for (const auto& f : cxx_flags(&call)) main_argv.push_back(f);
  if (!pch.empty()) main_argv.insert(main_argv.end(), {"-include", pch + "/" + kPchHeader});
  main_argv.insert(main_argv.end(), {"-c", "main.cpp", "-o", "main.o"});
  b.used_pch = !pch.empty();
  // main.cpp and cuda.cu compile at the same time: each is a single-threaded compiler.
  auto main_job = sandbox::Job::start(job_spec(main_argv));
  if (!main_job.ok()) return harness("harness.compile_launch", main_job.error().message);
  std::optional<sandbox::Job> cuda_job;
  if (has_cuda) {
    std::vector<std::string> argv = {config_.cuda_home + "/bin/nvcc"};
    for (const auto& f : cuda_flags(call)) argv.push_back(f);
    argv.insert(argv.end(), {"-c", "cuda.cu", "-o", "cuda.o"});
    auto j = sandbox::Job::start(job_spec(argv));
    if (!j.ok()) return harness("harness.compile_launch", j.error().message);
    cuda_job.emplace(std::move(*j));
  }
  const sandbox::Outcome main_out = main_job->wait();
  std::optional<sandbox::Outcome> cuda_out;
  if (cuda_job) cuda_out = cuda_job->wait();
  b.output = output_of(main_out, "main.cpp (g++)") + (cuda_out ? output_of(*cuda_out, "cuda.cu (nvcc)") : "");

  CompileCacheEntry entry;
  entry.used_pch = b.used_pch;
  auto compile_failure = [&](const sandbox::Outcome& o, const std::string& file) {
    if (o.status == sandbox::Outcome::Status::launch_failed)
      return CompileFailure{
          VerdictKind::harness_error,
          {{"harness.compile_launch", "cannot start the compiler for " + file + ": " + o.launch_error}}};
    if (o.status == sandbox::Outcome::Status::timeout)
      return CompileFailure{VerdictKind::compile_error,
                            {{"compile_error.timeout",
                              "compiling " + file + " of load_inline('" + call.name + "') ran past its time limit (" +
                                  std::to_string(static_cast<int>(config_.timeout_s)) + " s)"}}};
    const std::string text = o.stdout_text + o.stderr_text;
    // The linker names what it misses on lines without the word "error": its last lines say it all.
    std::string detail =
        "load_inline('" + call.name + "'), " + file + ":\n" +
        (file == "the link" ? text.substr(text.size() > 1500 ? text.size() - 1500 : 0) : first_error_lines(text));
    if (o.memory_limit_hit) detail = "the compiler ran out of its memory limit\n" + detail;
    return CompileFailure{VerdictKind::compile_error, {{"compile_error", detail}}};
  };
  if (!succeeded(main_out)) {
    entry.failure = compile_failure(main_out, "main.cpp");
  } else if (cuda_out && !succeeded(*cuda_out)) {
    entry.failure = compile_failure(*cuda_out, "cuda.cu");
  } else {
    std::vector<std::string> argv = {"g++", "-shared", "main.o"};
    if (has_cuda) argv.push_back("cuda.o");
    argv.insert(argv.end(), {"-o", call.name + ".so"});
    for (const auto& f : link_flags(call)) argv.push_back(f);
    auto link = sandbox::run(job_spec(argv));
    if (!link.ok()) return harness("harness.compile_launch", link.error().message);
    b.output += output_of(*link, "link (g++)");
    const fs::path built = fs::path(scratch->path()) / (call.name + ".so");
    std::error_code size_ec;
    if (!succeeded(*link) || !fs::is_regular_file(fs::symlink_status(built, size_ec))) {
      entry.failure = compile_failure(*link, "the link");
    } else if (auto refusal = refuse_library(built.string(), config_.allow_vendor_libs,
                                             "the extension load_inline('" + call.name + "')")) {
      entry.failure = std::move(refusal);
    } else if (auto refused = refuse_imports(built.string(), config_.allow_vendor_libs,
                                             "the extension load_inline('" + call.name + "')")) {
      entry.failure = std::move(refused);
    } else if (auto unwritable = slot.store_file(built, call.name + ".so")) {
      return harness(unwritable->code, unwritable->detail);
    }
  }
  entry.output = b.output;
  if (entry.ok() || entry.failure->verdict != VerdictKind::harness_error) (void)slot.store_entry(entry);
  from_entry(entry);
  b.seconds = now_s() - t0;
  return b;
}

}  // namespace kf::eval::kernelbench
