#include <iostream>

#include "cli/commands.h"
#include "core/log.h"
#include "core/version.h"
#include "sandbox/leftovers.h"

int main(int argc, char** argv) {
  using namespace kf;
  using namespace kf::cli;
  CLI::App app{"kforge: run agentic LLM kernel-generation campaigns and trust the numbers"};
  app.name("kforge");
  app.set_version_flag("--version", std::string("kforge ") + kf::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail to stderr");

  Registry registry;
  add_provider_commands(app, registry);
  add_mockserver_commands(app, registry);
  add_evaluator_commands(app, registry);
  add_selftest_commands(app, registry);
  add_agent_commands(app, registry);
  add_profiler_commands(app, registry);
  add_audit_commands(app, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the usage error
    return kExitUsage;
  }
  if (verbose) kf::log::set_level(kf::log::Level::debug);
  // What kforge processes that are gone left behind (frozen jobs, their groups, /dev/shm folders) is
  // taken back before anything else: a killed run must not cost the next command a GPU or memory.
  kf::sandbox::sweep_leftovers();
  try {
    return registry.run(app);
  } catch (const std::exception& e) {
    kf::log::error(std::string("internal error: ") + e.what() +
                   " (this is a bug in kforge; please report it with the command you ran)");
    return kExitHarness;
  }
}
