#pragma once
// One function per module that owns subcommands; main() calls each once.
#include "cli/registry.h"

namespace kf::cli {

void add_provider_commands(CLI::App& app, Registry& registry);    // ask, configs
void add_mockserver_commands(CLI::App& app, Registry& registry);  // mock-server

}  // namespace kf::cli
