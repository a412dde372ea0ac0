#include "cli/commands.h"

namespace kf::cli {
void add_agent_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
