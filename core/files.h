#pragma once
// Small filesystem helpers with errors as values.
#include <string>

#include "core/result.h"

namespace kf {

Result<std::string> read_file(const std::string& path);
// A suffix for a temporary sibling that no other thread or process picks at the same time
// (".tmp.<pid>.<n>"): two writers of the same path must never share their temporary file.
std::string unique_temp_suffix();
// Writes to a temporary sibling, fsyncs, then renames: readers never see a half-written file.
Status write_file_atomic(const std::string& path, const std::string& contents);
// Appends one line (a '\n' is added) and fsyncs before returning: the line survives kill -9.
Status append_line_durable(const std::string& path, const std::string& line);

}  // namespace kf
