#pragma once
// The one allow-list for the flags a KernelBench solution passes to load_inline (extra_cflags for g++,
// extra_cuda_cflags for nvcc, extra_ldflags for the link): what is allowed, checked after nvcc's and gcc's
// forwarding syntax (-Xcompiler=a,b, --compiler-options, -Xptxas, -Wl,..., -Xlinker) is expanded into the
// flags the forwarded-to tool sees. Everything else is refused, `@file` response files included (their
// contents are not in the call). docs/candidates.md, "Compiler flags".
#include <string>
#include <vector>

#include "core/result.h"

namespace kf::eval::kernelbench {

enum class FlagTool { gcc, nvcc, link };

// Ok, or compile_error.unsupported naming the first flag outside the allow-list (and the forwarding it came
// through). `flags` are whitespace-split words, in order; `field` and `extension` name them in the message.
Status check_compiler_flags(const std::vector<std::string>& flags, FlagTool tool, const std::string& field,
                            const std::string& extension);

// Each entry of extra_include_paths: a plain path (it becomes -I<path>), no flag in disguise.
Status check_include_paths(const std::vector<std::string>& paths, const std::string& extension);

}  // namespace kf::eval::kernelbench
