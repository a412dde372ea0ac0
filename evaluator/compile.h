#pragma once
// Candidate compilation: nvcc for .cu (cuda backend), g++ for .cpp (host backend), in a private
// temporary folder with time limits, output capped with the first errors intact, results cached by
// sha256(source, flags, toolchain, kforge.h).
#include <nlohmann/json.hpp>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "evaluator/compile_cache_entry.h"
#include "evaluator/evaluator.h"

namespace kf::eval {

struct CompilerConfig {
  Backend backend = Backend::host;
  std::string cuda_home;  // toolkit root
  std::string gpu_arch;   // "sm_90a"; required for cuda
  std::string cache_dir;
  std::string header_dir;  // folder holding kforge.h
  double timeout_s = 300;
  bool allow_vendor_libs = false;
};

class Compiler {
 public:
  explicit Compiler(CompilerConfig config);
  Compiled compile(const std::string& source_path);  // thread-safe
  std::vector<std::string> flags() const;

 private:
  std::string toolchain_version();
  CompilerConfig config_;
  std::mutex mutex_;
  std::string toolchain_;
};

// Vendor libraries a library links (DT_NEEDED) or whose symbols it leaves undefined, read from its ELF
// dynamic section. Empty when none. Err when the file is not a readable ELF64 shared object.
Result<std::vector<std::string>> vendor_libraries_used(const std::string& library_path);
// Every undefined symbol of a shared object's dynamic symbol table (what the dynamic linker resolves when it
// is loaded: the functions it calls in other libraries), mangled as the linker sees them.
Result<std::vector<std::string>> undefined_dynamic_symbols(const std::string& library_path);
// The vendor libraries (same names) mapped into a process, from the text of its /proc/<pid>/maps: finds a
// library however it was loaded (dlopen under a name built at run time included).
std::vector<std::string> vendor_libraries_mapped(const std::string& maps_text);

// Whether a built library may be loaded: at most kMaxLibraryBytes, a readable ELF shared object, and no
// vendor library unless allowed. nullopt when accepted; else why not (rejected | compile_error). `what` names
// the library in the reasons ("the candidate", an extension).
std::optional<CompileFailure> refuse_library(const std::string& path, bool allow_vendor_libs, const std::string& what);

std::string default_cache_dir();

// The lines of a compiler's output that name errors (the first ten), else its first ten lines.
std::string first_error_lines(const std::string& output);

}  // namespace kf::eval
