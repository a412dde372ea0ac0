#include "evaluator/kernelbench/extension_call.h"

#include <regex>
#include <sstream>

#include "core/hash.h"
#include "evaluator/kernelbench/compiler_flags.h"

namespace kf::eval::kernelbench {

namespace {

constexpr size_t kMaxSourceBytes = 4u << 20;
constexpr size_t kMaxFlags = 64;
constexpr size_t kMaxFlagBytes = 1024;
constexpr size_t kMaxFunctions = 256;

const char* const kKeyFields[] = {"name",          "cpp_sources",
                                  "cuda_sources",  "functions",
                                  "extra_cflags",  "extra_cuda_cflags",
                                  "extra_ldflags", "extra_include_paths",
                                  "with_cuda",     "with_pytorch_error_handling"};

Error unsupported(const std::string& what) { return make_error("compile_error.unsupported", what); }

bool identifier(const std::string& s, size_t max) {
  static const std::regex re("[A-Za-z_][A-Za-z0-9_]*");
  return !s.empty() && s.size() <= max && std::regex_match(s, re);
}

Result<std::vector<std::string>> strings(const nlohmann::json& r, const char* field, const std::string& ext) {
  std::vector<std::string> out;
  auto it = r.find(field);
  if (it == r.end() || it->is_null()) return out;
  if (!it->is_array()) return unsupported("load_inline('" + ext + "'): " + field + " is not a list of strings");
  for (const auto& s : *it) {
    if (!s.is_string()) return unsupported("load_inline('" + ext + "'): " + field + " is not a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// Recorded fields read by type: the record is the solution's to write, and a number where a name belongs is its
// mistake (an empty name, refused below; a default flag), never a reason for kforge to stop.
std::string text_field(const nlohmann::json& r, const char* field) {
  auto it = r.find(field);
  return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool bool_field(const nlohmann::json& r, const char* field, bool fallback) {
  auto it = r.find(field);
  return it != r.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string cpp_string_literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += p + "\n";
  return s;
}

}  // namespace

std::string extension_key(const nlohmann::json& record) {
  nlohmann::json material = nlohmann::json::object();
  for (const char* f : kKeyFields) material[f] = record.contains(f) ? record[f] : nlohmann::json();
  return sha256_hex(material.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Result<ExtensionCall> parse_extension_call(const nlohmann::json& r) {
  if (!r.is_object()) return unsupported("a recorded load_inline call is not an object");
  ExtensionCall c;
  c.name = text_field(r, "name");
  if (!identifier(c.name, 100))
    return unsupported("load_inline name '" + c.name.substr(0, 80) +
                       "' is not a C identifier of at most 100 characters (it names the module)");
  const std::string& n = c.name;
  for (auto [field, dst] :
       {std::pair{"cpp_sources", &c.cpp_sources}, std::pair{"cuda_sources", &c.cuda_sources},
        std::pair{"extra_cflags", &c.extra_cflags}, std::pair{"extra_cuda_cflags", &c.extra_cuda_cflags},
        std::pair{"extra_ldflags", &c.extra_ldflags}, std::pair{"extra_include_paths", &c.extra_include_paths}}) {
    auto v = strings(r, field, n);
    if (!v.ok()) return v.error();
    *dst = std::move(*v);
    // torch writes these flags space-joined into a ninja file: an empty entry (KernelBench's own example
    // passes extra_cflags=[""]) vanishes and "-O3 --use_fast_math" is two flags. Do the same.
    if (std::string(field) == "extra_cflags" || std::string(field) == "extra_cuda_cflags" ||
        std::string(field) == "extra_ldflags") {
      std::vector<std::string> words;
      for (const auto& flag : *dst) {
        std::istringstream in(flag);
        for (std::string w; in >> w;) words.push_back(w);
      }
      *dst = std::move(words);
    }
  }
  size_t bytes = 0;
  for (const auto& s : c.cpp_sources) bytes += s.size();
  for (const auto& s : c.cuda_sources) bytes += s.size();
  if (bytes > kMaxSourceBytes) return unsupported("load_inline('" + n + "'): the sources are over 4 MiB");
  for (auto [flags, field, tool] : {std::tuple{&c.extra_cflags, "extra_cflags", FlagTool::gcc},
                                    std::tuple{&c.extra_cuda_cflags, "extra_cuda_cflags", FlagTool::nvcc},
                                    std::tuple{&c.extra_ldflags, "extra_ldflags", FlagTool::link}}) {
    if (flags->size() > kMaxFlags)
      return unsupported("load_inline('" + n + "'): more than " + std::to_string(kMaxFlags) + " " + field);
    for (const auto& f : *flags)
      if (f.size() > kMaxFlagBytes) return unsupported("load_inline('" + n + "'): a flag in " + field + " is too long");
    if (auto st = check_compiler_flags(*flags, tool, field, n); !st.ok()) return st.error();
  }
  if (c.extra_include_paths.size() > kMaxFlags)
    return unsupported("load_inline('" + n + "'): more than " + std::to_string(kMaxFlags) + " extra_include_paths");
  if (auto st = check_include_paths(c.extra_include_paths, n); !st.ok()) return st.error();
  const auto& fns = r.contains("functions") ? r["functions"] : nlohmann::json();
  if (fns.is_array()) {
    for (const auto& f : fns)
      if (f.is_string()) c.functions.push_back({f.get<std::string>(), f.get<std::string>()});
  } else if (fns.is_object()) {
    for (const auto& [k, v] : fns.items()) c.functions.push_back({k, v.is_string() ? v.get<std::string>() : k});
  }
  if (c.functions.size() > kMaxFunctions)
    return unsupported("load_inline('" + n + "'): more than " + std::to_string(kMaxFunctions) + " functions");
  for (const auto& f : c.functions)
    if (!identifier(f.first, 200))
      return unsupported("load_inline('" + n + "'): function '" + f.first.substr(0, 80) + "' is not a C++ identifier");
  if (c.functions.empty() && joined(c.cpp_sources).find("PYBIND11_MODULE") == std::string::npos)
    return unsupported("load_inline('" + n +
                       "') names no functions and its cpp_sources define no PYBIND11_MODULE: "
                       "the module would have nothing to call");
  if (!bool_field(r, "is_python_module", true))
    return unsupported("load_inline('" + n +
                       "', is_python_module=False) is not supported: kforge loads extensions "
                       "as Python modules");
  const auto wc = r.find("with_cuda");
  c.with_cuda = wc != r.end() && wc->is_boolean() ? wc->get<bool>() : !c.cuda_sources.empty();
  c.with_pytorch_error_handling = bool_field(r, "with_pytorch_error_handling", true);
  c.key = extension_key(r);
  return c;
}

std::string ExtensionCall::main_cpp() const {
  std::string s = "#include <torch/extension.h>\n" + joined(cpp_sources);
  if (!functions.empty()) {
    s += "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n";
    for (const auto& [fn, doc] : functions) {
      const std::string bound = with_pytorch_error_handling ? "torch::wrap_pybind_function(" + fn + ")" : fn;
      s += "  m.def(" + cpp_string_literal(fn) + ", " + bound + ", " + cpp_string_literal(doc) + ");\n";
    }
    s += "}\n";
  }
  return s;
}

std::string ExtensionCall::cuda_cu() const {
  if (cuda_sources.empty()) return {};
  return "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + joined(cuda_sources);
}

}  // namespace kf::eval::kernelbench
