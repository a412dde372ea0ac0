#include "evaluator/kernelbench/compiler_flags.h"

#include <regex>

namespace kf::eval::kernelbench {

namespace {

bool any_match(const std::string& flag, const std::vector<std::regex>& patterns) {
  for (const auto& p : patterns)
    if (std::regex_match(flag, p)) return true;
  return false;
}

std::vector<std::regex> compiled(std::initializer_list<const char*> patterns) {
  std::vector<std::regex> out;
  for (const char* p : patterns) out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
  return out;
}

// g++ (extra_cflags, and what nvcc forwards with -Xcompiler): optimisation, debug information, language
// standard, target ISA extensions, code-generation and floating-point choices, warnings, macros and include
// folders. Nothing that names a program, a plugin, a spec file, an output or another tool's options.
const std::vector<std::regex>& gcc_patterns() {
  static const auto p = compiled({
      R"(-O[0-3sgz]?|-Ofast)",
      R"(-g[0-3]?|-ggdb[0-3]?)",
      R"(-std=(c|gnu)\+\+(11|14|17|20|23|1z|2a|2b|2c))",
      R"(-m(arch|tune|cpu)=[A-Za-z0-9_.+-]+)",
      R"(-m(no-)?(avx|avx2|avx512[a-z0-9]*|avxvnni|sse[0-9.]*|ssse3|fma|f16c|bmi2?|popcnt|lzcnt|amx-[a-z0-9]+|64|prefer-vector-width=[0-9]+))",
      R"(-f(no-)?(fast-math|math-errno|unroll-loops|unroll-all-loops|openmp|openmp-simd|PIC|pic|strict-aliasing|tree-vectorize|tree-loop-vectorize|tree-slp-vectorize|omit-frame-pointer|permissive|finite-math-only|associative-math|reciprocal-math|signed-zeros|trapping-math|rounding-math|inline-functions|semantic-interposition|rtti|peel-loops|prefetch-loop-arrays|ipa-pta|cx-limited-range|diagnostics-color|stack-protector|stack-protector-strong|lto|unsafe-math-optimizations))",
      R"(-f(excess-precision|fp-contract|vect-cost-model|simd-cost-model|max-errors|template-depth|constexpr-depth|constexpr-steps|constexpr-loop-limit|constexpr-ops-limit|diagnostics-color|visibility|align-loops|align-functions|tabstop|message-length)=[A-Za-z0-9_.-]+)",
      // Warnings; not -Wl, -Wa, -Wp (the linker's, assembler's and preprocessor's options).
      R"(-W(?![lap],)[A-Za-z0-9_=+-]*|-w)",
      R"(-[DU][A-Za-z_][A-Za-z0-9_]*(=[^@]*)?)",
      R"(-I[^-@].*)",
      R"(-pthread|-fopenmp|-pipe|-DNDEBUG)",
  });
  return p;
}

// nvcc (extra_cuda_cflags): the same kinds, in nvcc's spelling.
const std::vector<std::regex>& nvcc_patterns() {
  static const auto p = compiled({
      R"(-O[0-3])",
      R"(--?use_fast_math)",
      R"(--?(ftz|prec-div|prec-sqrt|fmad)=(true|false))",
      R"(-lineinfo|--generate-line-info|-g|-G|--device-debug|-w|--disable-warnings|--?restrict|--resource-usage|-res-usage)",
      R"(--?(expt-relaxed-constexpr|expt-extended-lambda|extended-lambda)|-src-in-ptx|--source-in-ptx|-v|--verbose)",
      R"(--?std=c\+\+(11|14|17|20))",
      R"(-[DU][A-Za-z_][A-Za-z0-9_]*(=[^@]*)?)",
      R"(-I[^-@].*)",
      R"(--?maxrregcount=[0-9]+)",
      R"((-arch|--gpu-architecture|-code|--gpu-code)=(sm|compute)_[0-9]+[af]?)",
      R"(-gencode=arch=compute_[0-9]+[af]?,code=\[?(sm|compute)_[0-9]+[af]?(,(sm|compute)_[0-9]+[af]?)*\]?)",
      R"(--?diag[-_]suppress=[0-9a-z_,-]+)",
      R"((--threads|-t)=?[0-9]+)",
      R"(--?Werror(=[a-z,-]+)?|-W[a-z][a-z-]*)",
  });
  return p;
}

// ptxas (what nvcc forwards with -Xptxas): verbosity, optimisation, register and cache choices.
const std::vector<std::regex>& ptxas_patterns() {
  static const auto p =
      compiled({R"(-v|--verbose|-O[0-3]|--warn-on-spills|--allow-expensive-optimizations=?(true|false)?)",
                R"(--?maxrregcount=?[0-9]+|-dlcm=(ca|cg)|-dscm=(cg|cs|wt)|--def-load-cache=(ca|cg))"});
  return p;
}

// The link (extra_ldflags): libraries by name from the toolchain's own folders, library folders, threads.
const std::vector<std::regex>& link_patterns() {
  static const auto p = compiled({
      R"(-l(cuda|cudart|cublas|cublasLt|cudnn|curand|cufft|cusparse|cusolver|nvrtc|m|pthread|gomp|stdc\+\+|c10|c10_cuda|torch|torch_cpu|torch_cuda|torch_python))",
      R"(-L[^-@].*)",
      R"(-fopenmp|-pthread|-O[0-3s]?|-s|-shared)",
  });
  return p;
}

// What the linker itself may be given through -Wl, / -Xlinker.
const std::vector<std::regex>& linker_patterns() {
  static const auto p = compiled({R"(--as-needed|--no-as-needed|-O[0-2]|--gc-sections|--strip-all|-s)"});
  return p;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// One flag after forwarding is expanded: the tool it reaches and how it got there.
struct Expanded {
  std::string flag;
  enum class To { gcc, nvcc, ptxas, link, linker, refused } to;
  std::string via;  // "" or the forwarding option
};

// A word that takes the next word as its value (nvcc's and gcc's separate-argument spellings).
bool takes_value(const std::string& w, FlagTool tool) {
  if (w == "-D" || w == "-U" || w == "-I" || w == "-Xlinker") return true;
  if (tool == FlagTool::nvcc)
    return w == "-Xcompiler" || w == "--compiler-options" || w == "-Xptxas" || w == "--ptxas-options" ||
           w == "-gencode" || w == "--generate-code" || w == "-arch" || w == "--gpu-architecture" || w == "-code" ||
           w == "--gpu-code" || w == "--maxrregcount" || w == "-maxrregcount" || w == "-t" || w == "--threads" ||
           w == "--diag-suppress" || w == "-diag-suppress" || w == "--linker-options" || w == "-Xnvlink" ||
           w == "-Xarchive";
  return false;
}

std::vector<Expanded> expand(const std::vector<std::string>& words, FlagTool tool) {
  using To = Expanded::To;
  const To own = tool == FlagTool::gcc ? To::gcc : tool == FlagTool::nvcc ? To::nvcc : To::link;
  std::vector<Expanded> out;
  auto forward = [&](const std::string& value, To to, const std::string& via) {
    for (const auto& f : split_commas(value)) out.push_back({f, to, via});
  };
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    if (takes_value(w, tool)) {
      if (i + 1 == words.size()) {
        out.push_back({w, To::refused, "(no value follows it)"});
        continue;
      }
      const std::string value = words[++i];
      if (w == "-Xcompiler" || w == "--compiler-options")
        forward(value, To::gcc, w);
      else if (w == "-Xptxas" || w == "--ptxas-options")
        forward(value, To::ptxas, w);
      else if (w == "-Xlinker")
        out.push_back({value, tool == FlagTool::link ? To::linker : To::refused, w});
      else if (w == "--linker-options" || w == "-Xnvlink" || w == "-Xarchive")
        out.push_back({value, To::refused, w});
      else if (w == "-gencode" || w == "--generate-code")
        out.push_back({"-gencode=" + value, own, ""});
      else
        out.push_back({w + (w.size() == 2 ? "" : "=") + value, own, ""});
      continue;
    }
    const auto eq = w.find('=');
    const std::string head = w.substr(0, eq);
    if (tool == FlagTool::nvcc && eq != std::string::npos &&
        (head == "-Xcompiler" || head == "--compiler-options" || head == "-Xptxas" || head == "--ptxas-options" ||
         head == "-Xlinker" || head == "--linker-options" || head == "-Xnvlink" || head == "-Xarchive")) {
      const std::string value = w.substr(eq + 1);
      if (head == "-Xcompiler" || head == "--compiler-options")
        forward(value, To::gcc, head + "=");
      else if (head == "-Xptxas" || head == "--ptxas-options")
        forward(value, To::ptxas, head + "=");
      else
        out.push_back({value, To::refused, head + "="});
      continue;
    }
    if (w.rfind("-Wl,", 0) == 0) {
      const std::string value = w.substr(4);
      if (tool == FlagTool::link)
        forward(value, To::linker, "-Wl,");
      else
        out.push_back({value, To::refused, "-Wl,"});
      continue;
    }
    out.push_back({w, own, ""});
  }
  return out;
}

const char* tool_name(Expanded::To to) {
  switch (to) {
    case Expanded::To::gcc: return "g++";
    case Expanded::To::nvcc: return "nvcc";
    case Expanded::To::ptxas: return "ptxas";
    case Expanded::To::link: return "the link";
    case Expanded::To::linker: return "the linker";
    case Expanded::To::refused: return "a tool kforge does not forward options to";
  }
  return "";
}

}  // namespace

Status check_compiler_flags(const std::vector<std::string>& flags, FlagTool tool, const std::string& field,
                            const std::string& extension) {
  for (const auto& e : expand(flags, tool)) {
    bool allowed = false;
    // A response file's contents are not in the call: refused wherever it appears.
    if (!e.flag.empty() && e.flag.find('@') != 0) {
      switch (e.to) {
        case Expanded::To::gcc: allowed = any_match(e.flag, gcc_patterns()); break;
        case Expanded::To::nvcc: allowed = any_match(e.flag, nvcc_patterns()); break;
        case Expanded::To::ptxas: allowed = any_match(e.flag, ptxas_patterns()); break;
        case Expanded::To::link: allowed = any_match(e.flag, link_patterns()); break;
        case Expanded::To::linker: allowed = any_match(e.flag, linker_patterns()); break;
        case Expanded::To::refused: allowed = false; break;
      }
    }
    if (allowed) continue;
    const std::string shown = e.flag.size() > 80 ? e.flag.substr(0, 77) + "..." : e.flag;
    std::string how = e.via.empty() ? "" : " (passed to " + std::string(tool_name(e.to)) + " through " + e.via + ")";
    if (e.to == Expanded::To::refused && !e.via.empty() && e.via[0] == '(') how = " " + e.via;
    return make_error("compile_error.unsupported",
                      "load_inline('" + extension + "'): the flag '" + shown + "'" + how + " in " + field +
                          " is not on kforge's allow-list of compiler flags (optimisation, debug information, "
                          "language standard, target, floating-point and warning choices, macros, include "
                          "folders; docs/candidates.md, \"Compiler flags\")" +
                          (e.flag.rfind('@', 0) == 0 ? ": response files (@file) are refused" : ""));
  }
  return ok_status();
}

Status check_include_paths(const std::vector<std::string>& paths, const std::string& extension) {
  for (const auto& p : paths) {
    const bool plain =
        !p.empty() && p[0] != '-' && p[0] != '@' && p.find_first_of(std::string("\n\r\0", 3)) == std::string::npos;
    if (!plain)
      return make_error("compile_error.unsupported",
                        "load_inline('" + extension + "'): the include path '" + p.substr(0, 80) +
                            "' in extra_include_paths is not a plain folder name (it would reach the compiler as a "
                            "flag)");
  }
  return ok_status();
}

}  // namespace kf::eval::kernelbench
