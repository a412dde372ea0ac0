#include "evaluator/kernelbench/static_check.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/files.h"
#include "evaluator/kernelbench/python_job.h"

namespace kf::eval::kernelbench {

namespace {

constexpr size_t kMaxSourceBytes = 1 << 20;
constexpr double kStaticCheckTimeoutS = 60;

std::string str(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool flag(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const nlohmann::json& list(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

std::string line_of(const nlohmann::json& item) {
  auto it = item.find("line");
  return it != item.end() && it->is_number_integer() ? "line " + std::to_string(it->get<int64_t>()) : "line ?";
}

}  // namespace

Result<nlohmann::json> run_static_check(const PythonEnv& env, const std::string& mode, const std::string& source) {
  if (source.size() > kMaxSourceBytes)
    return nlohmann::json{{"ok", false},
                          {"error", "too_large"},
                          {"detail", "the file is over " + std::to_string(kMaxSourceBytes) + " bytes"}};
  auto script = kernelbench_script("static_check.py");
  if (!script.ok()) return script.error();
  auto dir = ScratchDir::create("kforge-static");
  if (!dir.ok()) return dir.error();
  PythonJob job;
  // -S: the check needs nothing but the standard library (no site packages, no torch): it starts fast.
  job.args = {"-I", "-S", "-B", "static_check.py", "--mode", mode, "--file", "input.py"};
  job.files = {{"static_check.py", *script}, {"input.py", source}};
  job.timeout_s = kStaticCheckTimeoutS;
  job.memory_bytes = 2ull << 30;
  job.output_bytes = 256 << 10;
  auto out = run_python_job(env, dir->path(), job);
  if (!out.ok()) return out.error();
  if (out->status == sandbox::Outcome::Status::launch_failed)
    return make_error("harness.static_check",
                      "cannot start the static check (" + env.executable + "): " + out->launch_error);
  if (out->status == sandbox::Outcome::Status::timeout)
    return nlohmann::json{{"ok", false}, {"error", "too_complex"}, {"detail", "the static check ran out of time"}};
  auto j = nlohmann::json::parse(out->stdout_text, nullptr, false);
  if (!j.is_object()) {
    if (out->memory_limit_hit)
      return nlohmann::json{{"ok", false}, {"error", "too_complex"}, {"detail", "the static check ran out of memory"}};
    // The check reads nothing but the file: an answer it could not give is the file's doing (for a solution;
    // a problem's reference is the user's input, named as such).
    return nlohmann::json{{"ok", false},
                          {"error", "unanalysable"},
                          {"detail", "the static check gave no readable answer (exit " +
                                         std::to_string(out->exit_code) + "): " + out->stderr_text.substr(0, 300)}};
  }
  return j;
}

std::vector<Reason> judge_static(const nlohmann::json& f, Backend backend, const PythonEnv& env) {
  if (!flag(f, "ok")) {
    const std::string error = str(f, "error"), detail = str(f, "detail");
    if (error == "syntax") return {{"compile_error", "the solution is not valid Python: " + detail}};
    return {{"compile_error.unsupported", "the solution cannot be analysed: " + detail}};
  }
  if (!flag(f, "has_model_new"))
    return {{"compile_error.unsupported",
             "the solution defines no class ModelNew (a KernelBench solution is a module with class "
             "ModelNew(nn.Module) whose forward calls its own kernels)"}};
  if (!flag(f, "has_forward")) return {{"compile_error.unsupported", "ModelNew defines no forward method"}};
  if (const auto& files = list(f, "load_files"); !files.empty())
    return {{"compile_error.unsupported",
             "the solution calls torch.utils.cpp_extension.load() on source files (line " + files[0].dump() +
                 "); kforge builds extensions from load_inline(cpp_sources=..., cuda_sources=...) only"}};
  const bool host = backend == Backend::host;
  if (host)
    for (const auto& call : list(f, "load_inline"))
      if (flag(call, "cuda_sources"))
        return {{"compile_error.unsupported", "load_inline at " + line_of(call) +
                                                  " passes cuda_sources: CUDA code needs the cuda backend; on the "
                                                  "host backend a solution may use cpp_sources only"}};
  const bool triton = flag(f, "uses_triton") || !list(f, "triton_kernels").empty();
  if (host && triton) return {{"compile_error.unsupported", "the solution uses Triton, which needs the cuda backend"}};
  // JIT packages whose absence is known without running anything (other missing modules show when the
  // solution is imported).
  for (const auto& m : list(f, "imports")) {
    if (!m.is_string()) continue;
    const std::string name = m.get<std::string>();
    if ((name == "triton" || name == "tilelang" || name == "cutlass") && !env.has_package(name)) {
      const std::string what = name == "cutlass"    ? "CuTe DSL (the cutlass package)"
                               : name == "tilelang" ? "TileLang"
                                                    : "Triton";
      return {{"compile_error.missing_package", "the solution imports " + name + ", but the runner's python (" +
                                                    env.executable + ") has no " + what +
                                                    ": install it there, or run the solution where it is installed"}};
    }
  }
  if (!list(f, "tampering").empty()) {
    std::string detail = "the solution tampers with the harness from Python:";
    int n = 0;
    for (const auto& t : list(f, "tampering")) {
      if (n++ == 4) break;
      detail += " " + line_of(t) + ": " + str(t, "detail") + ";";
    }
    return {{"rejected.harness_tampering", detail + " no kernel needs this"}};
  }
  if (!list(f, "hidden_calls").empty()) {
    std::string detail = "the solution's text does not say what it runs:";
    int n = 0;
    for (const auto& h : list(f, "hidden_calls")) {
      if (n++ == 4) break;
      detail += " " + line_of(h) + ": " + str(h, "detail") + ";";
    }
    return {{"rejected.torch_fallback",
             detail + " kforge attributes a solution's work to its own kernels from what the text calls, so a "
                      "solution that hides its calls, decodes code at run time or computes outside its kernels is "
                      "refused"}};
  }
  if (!flag(f, "kernel_reachable") && !flag(f, "forward_raises")) {
    if (const auto& off = list(f, "kernel_off_path"); !off.empty())
      return {{"rejected.torch_fallback",
               "ModelNew.forward calls its kernels only where `self.training` is False (line " + off[0].dump() +
                   "); the runner calls the model in training mode, as KernelBench's harness does, so on the measured "
                   "path the work is done with PyTorch"}};
    return {{"rejected.torch_fallback",
             "ModelNew.forward calls no kernel of its own (no function of a load_inline module, no @triton.jit kernel "
             "launched as kernel[grid](...)): the work is done with PyTorch"}};
  }
  return {};
}

ReferenceWork ReferenceWork::from_findings(const nlohmann::json& p) {
  ReferenceWork w;
  for (const auto& op : list(p, "reference_ops"))
    if (op.is_string()) w.ops.push_back(op.get<std::string>());
  if (auto it = p.find("reference_units"); it != p.end() && it->is_object()) {
    for (const auto& [unit, n] : it->items())
      if (n.is_number_integer() && n.get<int64_t>() > 0) w.units[unit] = n.get<int64_t>();
  } else {
    for (const auto& op : w.ops) w.units[op] = 1;  // a check of an older kforge: operators once each
  }
  return w;
}

std::vector<Reason> judge_torch_fallback(const nlohmann::json& f, const ReferenceWork& reference, Coverage* coverage) {
  // What forward surely does through PyTorch on every path that returns, in units (static_check.py); an extension's
  // C++ calling a torch operator may do it any number of times.
  constexpr int64_t kAny = int64_t{1} << 52;
  std::map<std::string, int64_t> sure;
  std::map<std::string, std::string> via;
  if (auto it = f.find("forward_units"); it != f.end() && it->is_object())
    for (const auto& [unit, n] : it->items())
      if (n.is_number_integer()) sure[unit] = n.get<int64_t>();
  std::set<std::string> any;  // through PyTorch on some path
  for (const auto& o : list(f, "torch_ops")) {
    any.insert(str(o, "op"));
    via.emplace(str(o, "op"), str(o, "via") + " at " + line_of(o));
    for (const auto& c : list(o, "covers"))
      if (c.is_string()) any.insert(c.get<std::string>());
  }
  for (const auto& u : list(f, "torch_units"))
    if (u.is_string()) any.insert(u.get<std::string>());
  for (const auto& o : list(f, "cpp_torch_ops")) {
    const std::string op = str(o, "op");
    any.insert(op);
    sure[op] = kAny;
    via.emplace(op, str(o, "via") + " in the extension's C++");
  }
  const auto& units = reference.units;
  const bool all = !units.empty() && std::all_of(units.begin(), units.end(), [&](const auto& u) {
    auto it = sure.find(u.first);
    return it != sure.end() && it->second >= u.second;
  });
  if (all) {
    std::string names;
    for (const auto& [unit, n] : units) {
      names += (names.empty() ? "" : ", ") + unit;
      if (auto it = via.find(unit); it != via.end()) names += " (" + it->second + ")";
    }
    return {{"rejected.torch_fallback",
             "ModelNew does the reference's work with PyTorch instead of its own kernels: on every path of forward "
             "that returns, PyTorch does all of it, as often as the reference does (" +
                 names + "), so no work of the reference's is left to a kernel beside it"}};
  }
  if (coverage) {
    *coverage = {};
    for (const auto& [unit, n] : units) (any.count(unit) ? coverage->torch : coverage->kernels).push_back(unit);
  }
  return {};
}

}  // namespace kf::eval::kernelbench
