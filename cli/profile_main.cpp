// kforge-profile: the profiler's subcommands (`profile`, `project`) in a small executable that links only the
// profiler and core libraries, for GPU hosts that lack the supervisor's dependencies (libcurl, seccomp, ...).
// `kforge-profile profile ...` behaves exactly as `kforge profile ...`.
#include <iostream>

#include "cli/commands.h"
#include "core/log.h"

int main(int argc, char** argv) {
  using namespace kf;
  using namespace kf::cli;
  CLI::App app{"kforge-profile: GPU time breakdown by kernel class, and the Amdahl projection of a campaign"};
  app.name("kforge-profile");
  app.require_subcommand(1);
  Registry registry;
  add_profiler_commands(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    return registry.run(app);
  } catch (const std::exception& e) {
    kf::log::error(std::string("internal error: ") + e.what());
    return kExitHarness;
  }
}
