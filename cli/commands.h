#pragma once
// One function per module that owns subcommands; main() calls each once.
#include "cli/registry.h"

namespace kf::cli {

void add_provider_commands(CLI::App& app, Registry& registry);    // ask, configs
void add_mockserver_commands(CLI::App& app, Registry& registry);  // mock-server
void add_evaluator_commands(CLI::App& app, Registry& registry);   // eval, signature
void add_selftest_commands(CLI::App& app, Registry& registry);    // selftest
void add_agent_commands(CLI::App& app, Registry& registry);       // run, report, compare, reverify, import, status
void add_profiler_commands(CLI::App& app, Registry& registry);    // profile, project
void add_audit_commands(CLI::App& app, Registry& registry);       // audit

}  // namespace kf::cli
