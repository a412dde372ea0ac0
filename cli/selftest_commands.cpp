// `kforge selftest`: the adversarial suite through the evaluator (docs/sandbox.md).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "selftest/selftest.h"

namespace kf::cli {

namespace {
struct SelftestArgs {
  selftest::SelftestOptions options;
  bool json = false;
};
}  // namespace

void add_selftest_commands(CLI::App& app, Registry& registry) {
  auto args = std::make_shared<SelftestArgs>();
  auto* st = app.add_subcommand("selftest",
                                "Run the adversarial suite (attacks and honest candidates) through "
                                "the evaluator; exit 0 only when every case gets its expected verdict");
  st->add_option("--backend", args->options.backend, "host or cuda (default host)")
      ->check(CLI::IsMember({"cuda", "host"}));
  st->add_flag("--json", args->json, "print the report as JSON instead of a table");
  st->add_option("--suite", args->options.suite_dir,
                 "folder holding cases.json (default <data dir>/tests/adversarial)");
  st->add_option("--python", args->options.python,
                 "python3 with torch for the oracle (default $KFORGE_PYTHON, else kforge's venv, else python3)");
  st->add_option("--runner", args->options.runner_path, "kforge-runner to use (default: beside kforge)");
  st->add_option("--cache-dir", args->options.cache_dir, "compile cache folder (default ~/.cache/kforge)");
  st->add_option("--work-root", args->options.work_root, "where evaluation folders go (default /dev/shm)");
  st->add_option("--only", args->options.only, "run only cases whose name contains this (repeatable)");
  st->add_option("--skip", args->options.skip, "skip cases whose name contains this (repeatable)");
  st->add_option("--case-timeout", args->options.case_timeout_s, "seconds a candidate may run per case (default 15)");
  registry.on_run(st, [args] {
    auto report = selftest::run_selftest(args->options);
    if (!report.ok()) {
      std::cerr << "error: " << report.error().message << "\n";
      return report.error().code.rfind("usage.", 0) == 0 ? kExitUsage : kExitHarness;
    }
    if (args->json)
      std::cout << report->to_json().dump(2) << "\n";
    else
      std::cout << report->table();
    return report->all_ok() ? kExitOk : kExitFailure;
  });
}

}  // namespace kf::cli
