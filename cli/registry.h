#pragma once
// Each module adds its subcommands to the CLI through one function; the registry remembers which
// handler runs when that (possibly nested) subcommand was parsed.
#include <CLI/CLI.hpp>

#include <functional>
#include <map>

namespace kf::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // the command ran; its subject failed (e.g. a kernel is incorrect)
inline constexpr int kExitUsage = 2;     // bad usage or bad input
inline constexpr int kExitHarness = 3;   // kforge itself could not do the job

class Registry {
 public:
  void on_run(CLI::App* subcommand, std::function<int()> handler) { handlers_[subcommand] = std::move(handler); }
  // Runs the handler of the deepest parsed subcommand; kExitUsage when none has one.
  int run(CLI::App& app) const;

 private:
  std::map<const CLI::App*, std::function<int()>> handlers_;
};

}  // namespace kf::cli
