// A kforge with only the evaluator's subcommands (eval, signature): lets the evaluator's CLI be tested and
// benchmarked without building every other module. Not installed.
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace kf::cli;
  CLI::App app{"kforge (evaluator commands only, for tests)"};
  app.name("kforge");
  app.require_subcommand(1);
  Registry registry;
  add_evaluator_commands(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  return registry.run(app);
}
