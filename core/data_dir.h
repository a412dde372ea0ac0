#pragma once
// Where kforge's shipped data lives (kforge.h, prompts/, configs/, the oracle script): the
// KFORGE_DATA_DIR environment variable, else the source tree for a build-tree binary, else the
// install prefix's share/kforge.
#include <string>

namespace kf {

std::string data_dir();
// data_dir() + "/" + relative
std::string data_path(const std::string& relative);

}  // namespace kf
