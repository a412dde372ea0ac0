#include "cli/commands.h"

namespace kf::cli {
void add_profiler_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
