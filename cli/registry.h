#pragma once
// Each module adds its subcommands to the CLI through one function; the registry remembers which
// handler runs when that (possibly nested) subcommand was parsed.
#include <CLI/CLI.hpp>

#include <functional>
#include <map>

#include "core/exit_codes.h"

namespace kf::cli {

class Registry {
 public:
  void on_run(CLI::App* subcommand, std::function<int()> handler) { handlers_[subcommand] = std::move(handler); }
  // Runs the handler of the deepest parsed subcommand; kExitUsage when none has one.
  int run(CLI::App& app) const;

 private:
  std::map<const CLI::App*, std::function<int()>> handlers_;
};

}  // namespace kf::cli
