#include "audit/problem_paths.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace kf::audit {
namespace {

namespace fs = std::filesystem;

// "12_Foo.py" -> 12; names without a leading number sort after numbered ones.
long long leading_number(const std::string& name) {
  size_t digits = 0;
  while (digits < name.size() && digits < 18 && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  return digits == 0 ? -1 : std::stoll(name.substr(0, digits));
}

bool natural_less(const fs::path& a, const fs::path& b) {
  const auto an = leading_number(a.filename().string());
  const auto bn = leading_number(b.filename().string());
  if ((an < 0) != (bn < 0)) return an >= 0;
  if (an != bn) return an < bn;
  return a.filename().string() < b.filename().string();
}

}  // namespace

Result<std::vector<std::string>> expand_problem_paths(const std::vector<std::string>& arguments) {
  if (arguments.empty()) {
    return make_error("audit.problems", "no problems given: pass --problems with a directory or .py files");
  }
  std::vector<std::string> files;
  for (const auto& argument : arguments) {
    std::error_code ec;
    const fs::path path(argument);
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        const auto name = entry.path().filename().string();
        if (entry.is_regular_file() && entry.path().extension() == ".py" && !name.starts_with("_")) {
          found.push_back(entry.path());
        }
      }
      if (ec) {
        return make_error("audit.problems", "cannot list problem directory " + argument + ": " + ec.message());
      }
      if (found.empty()) {
        return make_error("audit.problems", "problem directory " + argument +
                                                " holds no .py files; pass a folder of KernelBench-format problems");
      }
      std::sort(found.begin(), found.end(), natural_less);
      for (const auto& file : found) files.push_back(file.string());
    } else if (fs::is_regular_file(path, ec)) {
      if (path.extension() != ".py") {
        return make_error("audit.problems", "problem " + argument + " is not a .py file (KernelBench format expected)");
      }
      files.push_back(path.string());
    } else {
      return make_error("audit.problems", "problem path " + argument + " does not exist");
    }
  }
  return files;
}

}  // namespace kf::audit
