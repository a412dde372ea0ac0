#include "cli/commands.h"

namespace kf::cli {
void add_audit_commands(CLI::App&, Registry&) {}
}  // namespace kf::cli
