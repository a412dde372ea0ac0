#include "agent/claims/solution_kinds.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

namespace kf::agent {
namespace {

// Python `#` comments (but not C preprocessor lines inside CUDA sources) and C++ `//` comments, line by
// line. Strings are kept: a solution's CUDA source lives in Python strings.
std::string without_comments(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') {
      static const std::regex directive(R"(^#\s*(include|define|pragma|if|ifdef|ifndef|endif|else|elif|undef)\b)");
      if (!std::regex_search(line.substr(first), directive)) continue;
    }
    if (auto c = line.find("//"); c != std::string::npos) {
      // "//" inside a Python string or a URL ("http://") is no comment: only cut after code-like text.
      const std::string before = line.substr(0, c);
      if (before.find("://") == std::string::npos && (c == 0 || before.back() != ':')) line = before;
    }
    if (auto c = line.find("  # "); c != std::string::npos) line = line.substr(0, c);
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

const std::vector<std::string>& solution_kinds() {
  static const std::vector<std::string> k = {"cuda_kernel", "triton_kernel", "no_own_kernel",
                                             "cuda_graph",  "torch_compile", "vendor_library"};
  return k;
}

std::string solution_kind_label(const std::string& kind) {
  static const std::map<std::string, std::string> labels = {
      {"cuda_kernel", "own CUDA kernel"}, {"triton_kernel", "own Triton kernel"}, {"no_own_kernel", "no own kernel"},
      {"cuda_graph", "CUDA graphs"},      {"torch_compile", "torch.compile"},     {"vendor_library", "vendor library"}};
  auto it = labels.find(kind);
  return it == labels.end() ? kind : it->second;
}

std::vector<std::string> classify_solution(const std::string& text) {
  const std::string code = without_comments(text);
  static const std::regex cuda(R"(__global__)");
  static const std::regex triton(R"(@\s*triton\s*\.\s*jit|\btriton\s*\.\s*jit\s*\()");
  static const std::regex graph(
      R"(torch\.cuda\.CUDAGraph|torch\.cuda\.graph\s*\(|\bcudaGraph\w*|make_graphed_callables)");
  static const std::regex compile(R"(\btorch\s*\.\s*compile\b|\btorch\._dynamo\b)");
  static const std::regex vendor(
      R"(\bcublas\w*|\bcudnn(?!\.(benchmark|deterministic|allow_tf32|enabled)\b)\w*|\bcutlass\b|\bcufft\w*|\bcusparse\w*|\bcub::|\bthrust::|\b(at|torch)::(mm|matmul|bmm|addmm|baddbmm|linear|conv\w*|cudnn_\w+|_convolution)\s*\()",
      std::regex::icase);
  std::vector<std::string> out;
  const bool has_cuda = std::regex_search(code, cuda), has_triton = std::regex_search(code, triton);
  if (has_cuda) out.push_back("cuda_kernel");
  if (has_triton) out.push_back("triton_kernel");
  if (!has_cuda && !has_triton) out.push_back("no_own_kernel");
  if (std::regex_search(code, graph)) out.push_back("cuda_graph");
  if (std::regex_search(code, compile)) out.push_back("torch_compile");
  // `torch.backends.cudnn.benchmark = True` is a flag, not a call into cuDNN.
  std::string vendor_text = std::regex_replace(code, std::regex(R"(torch\.backends\.cudnn\.\w+)"), "");
  if (std::regex_search(vendor_text, vendor)) out.push_back("vendor_library");
  return out;
}

}  // namespace kf::agent
