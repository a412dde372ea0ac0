// `kforge audit`: which trivial outputs pass KernelBench's allclose check and kforge's verifier.
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "audit/audit.h"
#include "audit/problem_paths.h"
#include "audit/report.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/log.h"
#include "evaluator/evaluator.h"
#include "evaluator/pool.h"

namespace kf::cli {
namespace {

struct AuditOptions {
  std::vector<std::string> problems;
  std::string precision = "fp32";
  int seeds = 3;
  int kernelbench_trials = 5;
  std::string backend = "cuda";
  std::string python;
  std::vector<double> tolerances = {1e-2, 1e-4};
  bool json = false;
  std::string json_file;
  bool strict = false;
  bool baseline = false;
  bool compile_baseline = false;
  std::string gpus;    // --gpus: one evaluator per listed GPU ("" / all: every visible GPU)
  int evaluators = 0;  // --evaluators N on the host backend
};

nlohmann::json slot_json(const eval::EvaluatorSlot& s) {
  return {{"slot", s.slot},
          {"gpu_index", s.gpu ? nlohmann::json(s.gpu->index) : nlohmann::json(nullptr)},
          {"gpu_name", s.gpu ? s.gpu->name : ""},
          {"gpu_uuid", s.gpu ? s.gpu->uuid : ""}};
}

int run_audit_command(const AuditOptions& o) {
  auto backend = eval::parse_backend(o.backend);
  if (!backend) {
    log::error(backend.error().message);
    return kExitUsage;
  }
  if (o.precision != "fp32" && o.precision != "fp16" && o.precision != "bf16") {
    log::error("unknown precision '" + o.precision + "': use fp32, fp16 or bf16");
    return kExitUsage;
  }
  if (o.seeds < 1) {
    log::error("--seeds must be at least 1");
    return kExitUsage;
  }
  if (o.kernelbench_trials < 1) {
    log::error("--kernelbench-trials must be at least 1");
    return kExitUsage;
  }
  for (double tol : o.tolerances) {
    if (!(tol >= 0)) {
      log::error("--tolerances must be non-negative numbers, e.g. 1e-2,1e-4");
      return kExitUsage;
    }
  }
  auto files = audit::expand_problem_paths(o.problems);
  if (!files) {
    log::error(files.error().message);
    return kExitUsage;
  }

  auto slots = eval::plan_evaluators(*backend, o.gpus, o.evaluators);
  if (!slots) {
    log::error(slots.error().message);
    return slots.error().code == "gpu.query" ? kExitHarness : kExitUsage;
  }
  eval::EvaluatorOptions options;
  options.backend = *backend;
  options.python = o.python;
  options.precision = o.precision;
  const bool baseline = o.baseline || o.compile_baseline;
  options.measure_baseline = baseline;
  options.time_candidate = false;
  auto pool = eval::EvaluatorPool::create(options, *slots);
  if (!pool) {
    log::error("cannot start the evaluator for the audit: " + pool.error().message);
    return kExitHarness;
  }

  // Problems go to whichever evaluator is free, one problem per evaluator at a time; the report keeps
  // the order of the problem list.
  audit::AuditRequest request;
  request.problems = *files;
  request.seeds = o.seeds;
  request.kernelbench_trials = o.kernelbench_trials;
  request.tolerances = o.tolerances;
  request.compile_baseline = o.compile_baseline;
  const size_t count = request.problems.size();
  audit::AuditReport report;
  report.tolerances = request.tolerances;
  report.seeds = request.seeds;
  report.kernelbench_trials = request.kernelbench_trials;
  std::vector<std::optional<audit::ProblemAudit>> audited(count);
  std::mutex mu;
  size_t started = 0;
  (*pool)->for_each_job(count, [&](size_t i) {
    auto lease = (*pool)->acquire();
    eval::Evaluator& ev = lease.evaluator();
    audit::AuditRequest one = request;
    one.problems = {request.problems[i]};
    auto part = audit::run_audit(
        one,
        [&ev, &request](const std::string& path, audit::TrialSet set, int trial,
                        const std::vector<double>& tolerances) {
          return set == audit::TrialSet::kernelbench
                     ? ev.kernelbench_trivial_stats(path, trial, request.kernelbench_trials, tolerances)
                     : ev.trivial_stats(path, trial, tolerances);
        },
        [&](const std::string& name) {
          std::lock_guard lock(mu);
          log::info("audit " + std::to_string(++started) + "/" + std::to_string(count) + ": " + name +
                    ((*pool)->size() > 1 ? " (" + eval::describe(lease.slot()) + ")" : ""));
        },
        baseline ? audit::BaselineSource([&ev](const std::string& path, const std::string& which) {
          return ev.time_baseline(path, which);
        })
                 : audit::BaselineSource{});
    std::lock_guard lock(mu);
    part.problems.front().evaluator = slot_json(lease.slot());
    audited[i] = std::move(part.problems.front());
  });
  for (auto& p : audited)
    if (p) report.problems.push_back(std::move(*p));
  report.precision = o.precision;
  report.backend = o.backend;

  const auto json = audit::to_json(report);
  if (!o.json_file.empty()) {
    auto written = write_file_atomic(o.json_file, json.dump(2) + "\n");
    if (!written) {
      log::error("cannot write " + o.json_file + ": " + written.error().message);
      return kExitHarness;
    }
  }
  if (o.json) {
    std::cout << json.dump(2) << "\n";
  } else {
    std::cout << audit::render_table(report);
  }

  bool bad_problem = false, harness = false;
  for (const auto& problem : report.problems) {
    if (!problem.error) continue;
    (problem.error->code == "oracle.problem" ? bad_problem : harness) = true;
  }
  if (harness) return kExitHarness;
  if (bad_problem) return kExitUsage;
  if (o.strict && audit::totals(report).kforge_problems > 0) return kExitFailure;
  return kExitOk;
}

}  // namespace

void add_audit_commands(CLI::App& app, Registry& registry) {
  auto options = std::make_shared<AuditOptions>();
  auto* cmd = app.add_subcommand(
      "audit",
      "Report which trivial outputs (zeros, the reference's mean, an input passed through, a 0.3% partial "
      "write) pass KernelBench's allclose check and kforge's verifier on each problem");
  cmd->add_option("--problems", options->problems, "Problem files (.py) or folders of them")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--precision", options->precision, "fp32 | fp16 | bf16")->capture_default_str();
  cmd->add_option("--seeds", options->seeds,
                  "kforge trials per problem for the kforge column (trial 0 uses the problem's own inputs)")
      ->capture_default_str();
  cmd->add_option("--kernelbench-trials", options->kernelbench_trials,
                  "KernelBench correctness trials for the allclose columns (seeded as KernelBench seeds them)")
      ->capture_default_str();
  cmd->add_option("--backend", options->backend, "cuda (reference on the GPU) | host (on the CPU)")
      ->capture_default_str();
  cmd->add_option("--python", options->python, "Python interpreter with torch for the oracle");
  cmd->add_option("--tolerances", options->tolerances, "allclose tolerances (atol = rtol) to check")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--json", options->json, "Print JSON instead of the table");
  cmd->add_option("--json-file", options->json_file, "Also write the JSON report to this file");
  cmd->add_flag("--strict", options->strict, "Exit 1 when kforge's verifier admits a trivial output on some problem");
  cmd->add_flag("--baseline", options->baseline,
                "Also time each problem's PyTorch eager baseline, as `kforge eval` does");
  cmd->add_flag("--compile-baseline", options->compile_baseline,
                "Also time torch.compile's baseline (default mode) beside eager's, with both fractions of peak "
                "(implies --baseline)");
  cmd->add_option("--gpus", options->gpus,
                  "GPUs to audit on, one evaluator each: all (default on cuda) or a list, e.g. 0,1 or 0,0");
  cmd->add_option("--evaluators", options->evaluators, "Evaluators on the host backend (default 1)")
      ->check(CLI::PositiveNumber);
  registry.on_run(cmd, [options] { return run_audit_command(*options); });
}

}  // namespace kf::cli
