#include "cli/registry.h"

#include <iostream>

namespace kf::cli {

int Registry::run(CLI::App& app) const {
  CLI::App* current = &app;
  for (;;) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : current->get_subcommands()) {
      if (sub->parsed()) next = sub;
    }
    if (!next) break;
    current = next;
  }
  auto it = handlers_.find(current);
  if (it == handlers_.end()) {
    std::cerr << current->help();
    return kExitUsage;
  }
  return it->second();
}

}  // namespace kf::cli
