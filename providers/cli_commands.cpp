#include "cli/commands.h"

namespace kf::cli {
void add_provider_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
