#pragma once
#include <string>
#include <string_view>

#include "core/result.h"

namespace kf {

// Lower-case hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);
// SHA-256 of a file's contents; an error names the file when it cannot be read.
Result<std::string> sha256_file(const std::string& path);

}  // namespace kf
