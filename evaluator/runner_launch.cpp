// How one evaluation's runner is started: kforge-runner for kf_forward libraries, the python runner
// (evaluator/kernelbench/runner.py) for kernelbench solutions. Both get a job folder holding only their own
// copies of the candidate's files and job.json, an allowlisted environment and the same sandbox profile.
#include <filesystem>
#include <fstream>

#include "core/data_dir.h"
#include "core/files.h"
#include "evaluator/evaluator_impl.h"

namespace fs = std::filesystem;

namespace kf::eval {

namespace {

Status copy_into(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return make_error("harness.job", "cannot copy " + from + " into the job folder: " + ec.message());
  return ok_status();
}

// The runner must be the program itself: the sandbox shows it only its own file, so a wrapper script that
// execs the real program elsewhere fails inside the sandbox.
bool is_elf_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[4] = {};
  return f.read(magic, 4) && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

}  // namespace

// libkforge-seccomp.so (evaluator/kernelbench/seccomp_shim.cpp): $KFORGE_SECCOMP_LIBRARY, else beside the runner.
std::string runner_seccomp_library(const std::string& runner_path) {
  if (const char* p = std::getenv("KFORGE_SECCOMP_LIBRARY"); p && *p) return p;
  return (fs::path(runner_path).parent_path() / "libkforge-seccomp.so").string();
}

Result<RunnerLaunch> Evaluator::Impl::runner_launch(const std::string& job_dir, const Compiled& compiled,
                                                    const nlohmann::json& loaded, const nlohmann::json& buffers) {
  RunnerLaunch l;
  // An allowlist: nothing of kforge's own environment (API keys, tokens) reaches candidate code.
  l.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", job_dir}, {"LANG", "C"}};
  if (opt.backend == Backend::cuda) {
    l.confinement.cuda = true;
    l.confinement.cuda_isolation = *parse_cuda_isolation(opt.cuda_runner_isolation);
    l.confinement.readonly_paths.push_back(opt.cuda_home);
    std::string ld = opt.cuda_home + "/lib64";
    // The operator's library path (where the GPU machine keeps its CUDA libraries) is trusted input.
    if (const char* p = std::getenv("LD_LIBRARY_PATH"); p && *p) ld = std::string(p) + ":" + ld;
    l.env["LD_LIBRARY_PATH"] = ld;
    l.env["CUDA_HOME"] = opt.cuda_home;
    if (!opt.cuda_visible_devices.empty())
      l.env["CUDA_VISIBLE_DEVICES"] = opt.cuda_visible_devices;
    else if (const char* d = std::getenv("CUDA_VISIBLE_DEVICES"); d)
      l.env["CUDA_VISIBLE_DEVICES"] = d;
  }
  l.job = {{"backend", to_string(opt.backend)}, {"device", 0}, {"buffers", buffers}};

  if (compiled.kind == CandidateKind::kf_forward) {
    if (!fs::exists(opt.runner_path))
      return make_error("harness.runner_missing", "kforge-runner not found at " + opt.runner_path);
    if (!is_elf_file(opt.runner_path))
      return make_error("harness.runner_missing",
                        opt.runner_path +
                            " is not the kforge-runner program (a script or wrapper?): the sandbox "
                            "shows the runner only its own file, so point KFORGE_RUNNER at the program itself");
    // The runner sees only its job folder (and the toolchain's libraries): it gets its own copy of the
    // candidate library rather than a view into the compile cache.
    const std::string library = job_dir + "/candidate.so";
    if (auto st = copy_into(compiled.library_path, library); !st.ok()) return st.error();
    l.job["library"] = library;
    l.command = {opt.runner_path};
    return l;
  }

  auto* sc = get_solution_compiler();
  if (!sc) return make_error("harness.gpu_arch", compiler_setup_error);
  auto env = sc->python_env();
  if (!env.ok()) return env.error();
  for (const char* script : {"runner.py", "extension_call.py"})
    if (auto st = copy_into(data_path(std::string("evaluator/kernelbench/") + script), job_dir + "/" + script);
        !st.ok())
      return make_error("harness.script_missing",
                        st.error().message + " (set KFORGE_DATA_DIR to kforge's data folder)");
  const std::string seccomp = runner_seccomp_library(opt.runner_path);
  if (auto st = copy_into(seccomp, job_dir + "/libkforge-seccomp.so"); !st.ok())
    return make_error("harness.runner_missing", "the runner's seccomp library " + seccomp +
                                                    " is missing (build target kforge-seccomp, or set "
                                                    "KFORGE_SECCOMP_LIBRARY)");
  if (auto st = copy_into(compiled.library_path, job_dir + "/solution.py"); !st.ok()) return st.error();
  nlohmann::json extensions = nlohmann::json::array();
  for (size_t i = 0; i < compiled.extensions.size(); ++i) {
    const auto& e = compiled.extensions[i];
    const std::string library = job_dir + "/ext" + std::to_string(i) + "_" + e.name + ".so";
    if (auto st = copy_into(e.library, library); !st.ok()) return st.error();
    extensions.push_back({{"name", e.name}, {"key", e.key}, {"library", library}});
  }
  const nlohmann::json f = compiled.static_findings.is_object() ? compiled.static_findings : nlohmann::json::object();
  bool jit = f.value("uses_triton", false);
  for (const auto& m : f.value("imports", nlohmann::json::array())) jit = jit || m == "tilelang" || m == "cutlass";
  l.job["kind"] = "kernelbench";
  l.job["solution"] = job_dir + "/solution.py";
  l.job["extensions"] = extensions;
  l.job["init_inputs"] = loaded.value("init_inputs", nlohmann::json::array());
  l.job["arg_kinds"] = loaded.value("arg_kinds", nlohmann::json::array());
  l.job["precision"] = opt.precision;
  l.job["uses_triton"] = f.value("uses_triton", false);
  // JIT compilers (Triton's ptxas and C launcher, TileLang, CuTe DSL) run as child processes.
  l.job["allow_subprocesses"] = jit;
  l.job["seccomp_library"] = job_dir + "/libkforge-seccomp.so";
  l.command = {env->executable, "-I", "-B", job_dir + "/runner.py"};
  l.confinement.readonly_paths.insert(l.confinement.readonly_paths.end(), env->readonly_paths.begin(),
                                      env->readonly_paths.end());
  return l;
}

}  // namespace kf::eval
