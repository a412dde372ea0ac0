// `kforge profile` and `kforge project`.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/data_dir.h"
#include "core/files.h"
#include "core/log.h"
#include "profiler/breakdown.h"
#include "profiler/corpus.h"
#include "profiler/launch.h"
#include "profiler/projection.h"
#include "profiler/rules.h"
#include "profiler/trace.h"

namespace kf::cli {
namespace {

namespace fs = std::filesystem;
using namespace kf::profiler;

constexpr const char* kDefaultMarker = "kforge.measure";

struct ProfileOptions {
  std::string out = "kforge-profile.json";
  std::string region_marker = kDefaultMarker;
  std::string rules;
  std::string inject_lib;
  std::string from_records;
  bool keep_records = false;
  size_t top = 15;
  size_t max_kernels = 200;
  std::vector<std::string> command;
};

struct ProjectOptions {
  std::vector<std::string> profiles;
  std::string run_dir;
  std::string rules;
  std::string config;
  std::string json_out;
};

std::string rules_path(const std::string& given) {
  return given.empty() ? data_path("configs/kernel-classes.json") : given;
}

int report(const Error& e, int code) {
  log::error(e.message);
  return code;
}

int run_profile(const ProfileOptions& o) {
  auto rules = KernelRules::load(rules_path(o.rules));
  if (!rules) return report(rules.error(), kExitUsage);

  std::string records_dir = o.from_records;
  int program_status = 0;
  if (records_dir.empty()) {
    if (o.command.empty()) {
      log::error("nothing to profile: give the program after `--`, e.g. `kforge profile -- python3 train.py`.");
      return kExitUsage;
    }
    auto lib = find_injection_library(o.inject_lib);
    if (!lib) return report(lib.error(), kExitUsage);
    records_dir = o.out + ".records";
    std::error_code ec;
    fs::create_directories(records_dir, ec);
    if (ec) {
      log::error("cannot create the records folder " + records_dir + ": " + ec.message());
      return kExitHarness;
    }
    for (const auto& entry : fs::directory_iterator(records_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with("cupti-") && name.ends_with(".jsonl")) fs::remove(entry.path(), ec);
    }
    const std::string abs_records = fs::absolute(records_dir).string();
    auto status = run_program(o.command, {{"CUDA_INJECTION64_PATH", *lib},
                                          {"KFORGE_PROFILE_OUT", abs_records},
                                          {"KFORGE_CUPTI_LIB", *lib},
                                          {"KFORGE_REGION_MARKER", o.region_marker}});
    if (!status) return report(status.error(), kExitUsage);
    program_status = *status;
    if (program_status != 0) {
      log::warn("the profiled program exited with status " + std::to_string(program_status) +
                "; the profile below covers what it ran before that.");
    }
  }

  auto trace = read_trace_dir(records_dir);
  if (!trace) return report(trace.error(), kExitHarness);
  if (trace->processes == 0) {
    log::error(
        "no records were written: the program never initialized CUDA, or the CUDA driver did not load the "
        "injection library (is this a machine with an NVIDIA driver? does the program use the GPU?).");
    return program_status != 0 ? kExitFailure : kExitHarness;
  }
  const Breakdown b = compute_breakdown(*trace, *rules, o.region_marker);
  nlohmann::json j = breakdown_to_json(b, o.max_kernels);
  j["command"] = o.command;
  j["program_exit_status"] = program_status;
  j["rules"] = rules_path(o.rules);
  j["processes"] = trace->processes;
  if (o.keep_records || !o.from_records.empty()) j["records_dir"] = records_dir;
  if (auto w = write_file_atomic(o.out, j.dump(1) + "\n"); !w) return report(w.error(), kExitHarness);
  if (!o.keep_records && o.from_records.empty()) {
    std::error_code ec;
    fs::remove_all(records_dir, ec);
  }
  std::cout << format_breakdown(b, o.top) << "profile written to " << o.out << "\n";
  return program_status != 0 ? kExitFailure : kExitOk;
}

int run_project(const ProjectOptions& o) {
  auto rules = KernelRules::load(rules_path(o.rules));
  if (!rules) return report(rules.error(), kExitUsage);
  auto corpus = read_corpus(o.run_dir);
  if (!corpus) return report(corpus.error(), kExitUsage);
  if (corpus->configs.empty()) {
    log::error(o.run_dir + " holds no evaluations; nothing to project.");
    return kExitUsage;
  }
  if (!o.config.empty() && !corpus->configs.contains(o.config)) {
    std::string known;
    for (const auto& [name, _] : corpus->configs) known += (known.empty() ? "" : ", ") + name;
    log::error("configuration \"" + o.config + "\" is not in the corpus (it has: " + known + ").");
    return kExitUsage;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : o.profiles) {
    auto text = read_file(path);
    if (!text) return report(text.error(), kExitUsage);
    nlohmann::json pj = nlohmann::json::parse(*text, nullptr, false);
    auto profile = breakdown_from_json(pj, path);
    if (!profile) return report(profile.error(), kExitUsage);
    std::cout << "workload " << path << ": addressable fraction " << (100.0 * profile->addressable_fraction) << "%\n";
    for (const auto& [config, problems] : corpus->configs) {
      if (!o.config.empty() && config != o.config) continue;
      const Projection p = project(*profile, *rules, problems, config);
      std::cout << format_projection(p);
      nlohmann::json pj_out = projection_to_json(p);
      pj_out["profile"] = path;
      all.push_back(pj_out);
    }
    std::cout << "\n";
  }
  if (!o.json_out.empty()) {
    if (auto w = write_file_atomic(o.json_out, all.dump(1) + "\n"); !w) return report(w.error(), kExitHarness);
  }
  return kExitOk;
}

}  // namespace

void add_profiler_commands(CLI::App& app, Registry& registry) {
  auto popts = std::make_shared<ProfileOptions>();
  CLI::App* profile = app.add_subcommand(
      "profile", "Run a program under the CUPTI injection library and break its GPU time down by kernel class");
  profile->add_option("--out", popts->out, "Where to write the profile JSON")->capture_default_str();
  profile
      ->add_option("--region-marker", popts->region_marker,
                   "Name of the NVTX range (or kforge_region_begin/end marks) around the measured steps")
      ->capture_default_str();
  profile->add_option("--rules", popts->rules, "Kernel class rules (default: configs/kernel-classes.json)");
  profile->add_option("--inject-lib", popts->inject_lib, "Path of libkforge-cupti.so (default: next to kforge)");
  profile->add_option("--from-records", popts->from_records,
                      "Analyse records already written to this folder instead of running a program");
  profile->add_flag("--keep-records", popts->keep_records, "Keep the raw records folder (OUT.records)");
  profile->add_option("--top", popts->top, "Kernels listed in the printed table")->capture_default_str();
  profile->add_option("--max-kernels", popts->max_kernels, "Kernels listed in the JSON")->capture_default_str();
  profile->add_option("command", popts->command, "The program and its arguments, after --");
  registry.on_run(profile, [popts] { return run_profile(*popts); });

  auto jopts = std::make_shared<ProjectOptions>();
  CLI::App* project_cmd =
      app.add_subcommand("project", "Amdahl projection of a campaign's winning kernels onto profiled workloads");
  project_cmd->add_option("--profile", jopts->profiles, "Profile JSON written by `kforge profile` (repeatable)")
      ->required();
  project_cmd->add_option("--run", jopts->run_dir, "Campaign folder (its corpus files, shards included)")->required();
  project_cmd->add_option("--rules", jopts->rules, "Kernel class rules (default: configs/kernel-classes.json)");
  project_cmd->add_option("--config", jopts->config, "Only this model configuration (default: each one)");
  project_cmd->add_option("--json", jopts->json_out, "Also write the projections as JSON here");
  registry.on_run(project_cmd, [jopts] { return run_project(*jopts); });
}

}  // namespace kf::cli
