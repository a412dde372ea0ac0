#include "evaluator/kernelbench/python_env.h"

#include <nlohmann/json.hpp>

#include "core/child_process.h"
#include "sandbox/mount_plan.h"

namespace kf::eval::kernelbench {

namespace {

std::vector<std::string> strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& s : j)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

bool under(const std::string& path, const std::string& folder) {
  return path == folder ||
         (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 && path[folder.size()] == '/');
}

}  // namespace

bool PythonEnv::has_package(const std::string& name) const {
  auto it = packages.find(name);
  return it != packages.end() && it->second.has_value();
}

std::string PythonEnv::identity() const {
  std::string s = executable + "|" + python_version + "|torch " + torch_version + "|cuda " + torch_cuda + "|abi " +
                  std::to_string(cxx11_abi);
  for (const auto& [k, v] : pybind11) s += "|" + k + "=" + v;
  // Which JIT packages are there decides compile_error.missing_package.
  for (const auto& [k, v] : packages) s += "|" + k + "=" + v.value_or("-");
  return s;
}

Result<PythonEnv> probe_python_env(const std::string& python, const std::string& probe_script, double timeout_s) {
  ChildCommand command;
  command.argv = {python, "-I", probe_script};
  auto run = run_captured(command, timeout_s, 1 << 20);
  const std::string advice = "; kernelbench solutions need a python3 with torch (pass --python or set KFORGE_PYTHON)";
  if (!run.ok()) return make_error("harness.python", "cannot run " + python + ": " + run.error().message + advice);
  if (run->status != CapturedRun::Status::exited || run->exit_code != 0) {
    // Jobs run the interpreter isolated (-I): a torch in the user's own site-packages is not seen there.
    const bool no_torch = run->output.find("No module named 'torch'") != std::string::npos;
    return make_error("harness.python",
                      "probing " + python + " failed (exit " + std::to_string(run->exit_code) +
                          "): " + run->output.substr(0, 2000) +
                          (no_torch ? "; its torch must import with `python3 -I` (not from the user's own "
                                      "site-packages): install it system-wide or in a virtual environment"
                                    : advice));
  }
  // The answer is the last line (torch may print before it).
  std::string text = run->output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  auto j = nlohmann::json::parse(text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1), nullptr,
                                 false);
  if (!j.is_object() || !j.contains("torch"))
    return make_error("harness.python", "probing " + python + " gave no answer" + advice);
  PythonEnv env;
  env.executable = j.value("python", python);
  env.python_version = j.value("python_version", "");
  env.torch_version = j.value("torch", "");
  env.torch_cuda = j.value("torch_cuda", "");
  env.include_paths = strings(j["include_paths"]);
  env.library_paths = strings(j["library_paths"]);
  env.python_include = j.value("python_include", "");
  env.cxx11_abi = j.value("cxx11_abi", 1);
  if (j["pybind11"].is_object())
    for (const auto& [k, v] : j["pybind11"].items())
      if (v.is_string()) env.pybind11[k] = v.get<std::string>();
  if (j["packages"].is_object())
    for (const auto& [k, v] : j["packages"].items())
      env.packages[k] = v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
  for (const auto& p : strings(j["readonly_paths"])) {
    bool system = false;
    for (const auto& s : sandbox::system_readonly_paths()) system = system || under(p, s);
    if (!system) env.readonly_paths.push_back(p);
  }
  return env;
}

}  // namespace kf::eval::kernelbench
