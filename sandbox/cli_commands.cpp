#include "cli/commands.h"

namespace kf::cli {
void add_sandbox_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
