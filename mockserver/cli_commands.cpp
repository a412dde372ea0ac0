#include "cli/commands.h"

namespace kf::cli {
void add_mockserver_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
