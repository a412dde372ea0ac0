// The profile of a correct kernel for the model's feedback (docs/evaluator.md, "Profile feedback"): a runner of
// its own, started by the trusted side under Nsight Compute in the same sandbox as an evaluation's, one
// untimed trial, ncu's CSV read back as hostile input. Never part of an evaluation: no verdict, time or
// speedup comes from here, and nothing here runs while anything is timed.
#include <unistd.h>
#include <cstdlib>
#include <filesystem>

#include "core/child_process.h"
#include "core/files.h"
#include "evaluator/evaluation_context.h"
#include "verdict/ncu_csv.h"

namespace fs = std::filesystem;

namespace kf::eval {
namespace {

// The warp-stall metrics asked for besides the sections: the CPIStall rule's own metrics (warps stalled per
// issued instruction, by reason), which ncu lists only when named.
const char* const kStallReasons[] = {
    "barrier",         "branch_resolving",   "dispatch_stall",   "drain",        "imc_miss",     "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar",           "mio_throttle", "misc",         "no_instruction",
    "not_selected",    "selected",           "short_scoreboard", "sleeping",     "tex_throttle", "wait"};

// ncu launches many of the profiled kernels again per section pass; a call may take this many times as long.
constexpr double kProfiledCallLimitS = 300;

}  // namespace

std::string find_ncu(const std::string& cuda_home) {
  if (const char* named = std::getenv("KFORGE_NCU"); named && *named) return ::access(named, X_OK) == 0 ? named : "";
  const std::string home =
      cuda_home.empty() ? (std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda") : cuda_home;
  if (const std::string in_toolkit = home + "/bin/ncu"; ::access(in_toolkit.c_str(), X_OK) == 0) return in_toolkit;
  return find_executable("ncu");
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& csv_file) {
  std::string stalls = "gpu__time_duration.sum";
  for (const char* r : kStallReasons)
    stalls += std::string(",smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio";
  return {ncu,  "--csv",     "--log-file",   csv_file,    "--target-processes", "all",       "--launch-count",
          "16", "--section", "SpeedOfLight", "--section", "Occupancy",          "--metrics", stalls};
}

Result<KernelProfile> Evaluator::Impl::profile(const std::string& problem, const Compiled& compiled,
                                               const std::string& ncu) {
  if (opt.backend != Backend::cuda)
    return make_error("profile.backend", "Nsight Compute profiles the cuda backend only");
  if (!compiled.ok()) return make_error("profile.not_built", "the candidate did not build");
  EvaluationContext s(problem, problem_key(problem, compiled.kind), compiled);
  auto refused = [&](const std::string& what) {
    std::string why = s.verdict.reasons.empty()
                          ? "unknown"
                          : s.verdict.reasons.front().code + ": " + s.verdict.reasons.front().detail;
    return make_error("profile.run", what + " (" + why + ")");
  };
  if (load_problem(s) == Next::stop || prepare_job(s) == Next::stop)
    return refused("the profiling run could not be set up");
  // No timing plan: the calibration rounds would launch the runner's own kernels first, and ncu would profile them.
  s.plan.reset();
  s.call_limit_s = kProfiledCallLimitS;
  const std::string csv_file = s.job.dir + "/ncu.csv";
  RunnerLaunch& launch = *s.launch;
  auto command = ncu_command(ncu, csv_file);
  command.insert(command.end(), launch.command.begin(), launch.command.end());
  launch.command = std::move(command);
  // ncu's own installation (the program is usually a link into nsight-compute-<version>/).
  std::error_code ec;
  const fs::path real = fs::canonical(ncu, ec);
  launch.confinement.readonly_paths.push_back((ec ? fs::path(ncu) : real).parent_path().string());
  if (start_runner(s) == Next::stop) return refused("the profiling runner did not start");
  bool ran = load_candidate(s) == Next::go_on;
  if (ran) {
    auto r = one_trial(s, 0, s.seed, kVariants[0], "profile");
    ran = r && r->empty();
  }
  // Not "ran through": no attribution replay under the profiler. The device check before the next evaluation
  // watches this runner's processes too.
  end_runner(s, /*ran_through=*/false);
  if (!ran) return refused("the kernel did not run cleanly under ncu");
  // ncu wrote the file inside the runner's sandbox, where the candidate could have written it too: read as
  // hostile input, capped, and used for advice only.
  auto text = read_file(csv_file);
  if (!text) return make_error("profile.no_output", "ncu wrote no output: " + text.error().message);
  if (text->size() > (size_t{16} << 20)) text->resize(size_t{16} << 20);
  auto parsed = parse_ncu_csv(*text);
  if (!parsed) {
    const std::string head = text->substr(0, 300);
    return make_error("profile.unreadable", "ncu's output holds none of the figures asked for: " + head);
  }
  return *parsed;
}

Result<KernelProfile> Evaluator::profile(const std::string& problem_path, const Compiled& compiled,
                                         const std::string& ncu) {
  std::lock_guard lock(impl_->eval_mutex);
  return impl_->profile(problem_path, compiled, ncu);
}

}  // namespace kf::eval
