#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>

#include "core/version.h"

namespace kf {

std::string data_dir() {
  if (const char* env = std::getenv("KFORGE_DATA_DIR"); env && *env) return env;
  if (std::filesystem::exists(std::string(kBuildDataDir) + "/evaluator/kforge.h")) return kBuildDataDir;
  return kInstallDataDir;
}

std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

}  // namespace kf
