#include "cli/commands.h"

namespace kf::cli {
void add_evaluator_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
