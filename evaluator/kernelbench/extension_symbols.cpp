#include "evaluator/kernelbench/extension_symbols.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <string_view>

namespace kf::eval::kernelbench {

namespace {

// ATen operators (at::_ops::<name>, the dispatcher entry every at:: function and Tensor method of torch 2.x is
// inlined into) that a hand-written kernel legitimately needs: allocating its output, reading and changing
// metadata (views, reshapes, transposes, slices), moving data (copies, dtype and device moves, contiguous)
// and filling. None of them computes a reference's result. Names are ATen's own op struct names (base name
// and overload, as in ATen/ops/*_ops.h); `_out` variants and the rest of ATen are compute operators here.
const std::set<std::string_view>& glue_operators() {
  static const std::set<std::string_view> ops = {
      // allocation and filling
      "empty_memory_format", "empty_strided", "empty_like", "empty_names", "empty_permuted", "new_empty",
      "new_empty_strided", "zeros", "zeros_like", "zeros_names", "new_zeros", "ones", "ones_like", "ones_names", "full",
      "full_like", "full_names", "new_full", "fill__Scalar", "fill__Tensor", "fill_Scalar", "zero_", "resize_",
      "resize",
      // copies and moves
      "copy_", "_to_copy", "to_device", "to_dtype", "to_dtype_layout", "to_other", "contiguous", "clone", "detach",
      "detach_", "alias", "record_stream", "item", "_local_scalar_dense",
      // metadata and views
      "view", "view_dtype", "view_as", "reshape", "reshape_as", "_reshape_alias", "as_strided", "as_strided_", "expand",
      "expand_as", "permute", "transpose_int", "transpose_", "t", "t_", "squeeze", "squeeze_dim", "squeeze_dims",
      "squeeze_", "squeeze__dim", "squeeze__dims", "unsqueeze", "unsqueeze_", "flatten_using_ints", "unflatten_int",
      "select_int", "slice_Tensor", "narrow", "narrow_Tensor", "sym_size_int", "sym_stride_int", "sym_numel",
      "sym_storage_offset", "size_int", "stride_int"};
  return ops;
}

// Helpers of ATen's per-backend namespaces that are not operators: streams, devices, allocators, generators.
bool backend_helper(std::string_view rest) {
  for (std::string_view h : {"getCurrentCUDAStream", "getDefaultCUDAStream", "getStreamFromPool",
                             "getCurrentDeviceProperties", "getDeviceProperties", "CUDACachingAllocator",
                             "getCUDADeviceAllocator", "detail::", "warp_size", "device_count", "current_device"})
    if (rest.rfind(h, 0) == 0) return true;
  return false;
}

// The first component of a demangled qualified name's remainder: "matmul" of "matmul::call(...)".
std::string_view component(std::string_view rest) {
  const auto end = rest.find_first_of(":(<");
  return rest.substr(0, end == std::string_view::npos ? rest.size() : end);
}

bool starts(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// Vendor libraries' entry points (the same prefixes as the vendor-library check of kf_forward candidates).
bool vendor_symbol(std::string_view s) {
  for (std::string_view p : {"cublas", "cudnn", "cufft", "curand", "cusparse", "cusolver", "nccl"})
    if (starts(s, p)) return true;
  return false;
}

}  // namespace

std::string demangled(const std::string& symbol) {
  if (!starts(symbol, "_Z")) return symbol;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : symbol;
}

std::vector<RefusedImport> refused_imports(const std::vector<std::string>& undefined_symbols, bool allow_vendor_libs) {
  std::vector<RefusedImport> out;
  std::set<std::string> seen;
  auto refuse = [&](const std::string& code, const std::string& symbol, const std::string& why) {
    if (out.size() < 16 && seen.insert(symbol).second) out.push_back({code, symbol, why});
  };
  for (const auto& raw : undefined_symbols) {
    const std::string name = demangled(raw);
    const std::string_view n = name;
    // Run-time symbol lookup: whatever it finds was never in this table.
    if (n == "dlopen" || n == "dlmopen" || n == "dlsym" || n == "dlvsym" || starts(n, "__libc_dl") ||
        starts(n, "_dl_")) {
      refuse("rejected.vendor_library", name,
             "looks up code at run time (whatever it would load or call is not in the extension's symbol table)");
      continue;
    }
    if (vendor_symbol(n) && !allow_vendor_libs) {
      refuse("rejected.vendor_library", name, "a vendor library's entry point (--allow-vendor-libs allows them)");
      continue;
    }
    if (starts(n, "at::cuda::getCurrentCUDABlasHandle") || starts(n, "at::cuda::getCurrentCUDABlasLtHandle") ||
        starts(n, "at::cuda::getCurrentCUDASolverDnHandle") || starts(n, "at::cuda::getCurrentCUDASparseHandle") ||
        starts(n, "at::native::getCudnnHandle")) {
      if (!allow_vendor_libs)
        refuse("rejected.vendor_library", name, "a handle of a vendor library (--allow-vendor-libs allows them)");
      continue;
    }
    if (starts(n, "at::_ops::")) {
      const std::string_view op = component(n.substr(10));
      if (!glue_operators().count(op))
        refuse("rejected.torch_fallback", name, "calls ATen's operator " + std::string(op));
      continue;
    }
    bool backend = false;
    for (std::string_view ns : {"at::native::", "at::cpu::", "at::cuda::", "at::meta::",
                                "at::compositeexplicitautograd::", "at::compositeimplicitautograd::",
                                "at::compositeexplicitautogradnonfunctional::", "at::mps::", "at::xpu::"}) {
      if (!starts(n, ns)) continue;
      backend = true;
      if (!backend_helper(n.substr(ns.size())))
        refuse("rejected.torch_fallback", name, "calls one of ATen's operator implementations directly");
      break;
    }
    if (backend) continue;
    if (starts(n, "torch::jit::") || starts(n, "c10::Dispatcher::findSchema") || starts(n, "c10::Dispatcher::findOp") ||
        starts(n, "c10::Dispatcher::callBoxed") || starts(n, "c10::OperatorHandle::callBoxed") ||
        starts(n, "c10::Dispatcher::findSchemaOrThrow")) {
      refuse("rejected.torch_fallback", name, "looks up a torch operator by name at run time");
      continue;
    }
    // The interpreter's ways of running Python code, importing modules or reaching a caller's names from C++
    // (torch's Python operators would do the work): the binding code pybind11 generates needs none of them.
    // (It does need builtins, attribute lookup and calls: docs/candidates.md, "Limitations".)
    for (std::string_view p : {"PyImport_", "PyRun_", "Py_CompileString", "PyEval_EvalCode", "PyEval_GetGlobals",
                               "PyEval_GetFrame", "PyEval_GetLocals", "PyCode_", "PyFunction_New", "PyMarshal_",
                               "PySys_GetObject", "PyEval_GetFrameGlobals", "PyEval_GetFrameLocals"}) {
      if (starts(n, p)) {
        refuse("rejected.torch_fallback", name, "runs Python code or imports modules from C++");
        break;
      }
    }
  }
  return out;
}

}  // namespace kf::eval::kernelbench
