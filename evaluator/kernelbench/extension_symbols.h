#pragma once
// What a built load_inline extension imports, read from its dynamic symbol table by the trusted side before
// any solution code runs: the linker's table is the truth, whatever the source text looked like (an ATen
// call without a namespace, sources decoded at import time). docs/candidates.md, "The extension's imports".
#include <string>
#include <vector>

#include "verdict/verdict.h"

namespace kf::eval::kernelbench {

// One refused import: the reason code (rejected.torch_fallback | rejected.vendor_library) and the symbol.
struct RefusedImport {
  std::string code;
  std::string symbol;  // demangled where it is a C++ name
  std::string why;
};

// The imports of `undefined_symbols` (mangled) that an extension may not use: ATen compute operators (every
// at::_ops / at::native / per-backend operator except allocation, metadata, views and copies), run-time
// operator lookup (the dispatcher by name, TorchScript), the Python interpreter's code execution and imports,
// run-time symbol lookup (dlopen, dlsym) and vendor libraries' entry points (unless `allow_vendor_libs`).
std::vector<RefusedImport> refused_imports(const std::vector<std::string>& undefined_symbols, bool allow_vendor_libs);

// A demangled C++ name ("at::_ops::matmul::call(...)"), or the name itself when it is not a mangled one.
std::string demangled(const std::string& symbol);

}  // namespace kf::eval::kernelbench
