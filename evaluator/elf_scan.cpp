// Reads DT_NEEDED entries and undefined dynamic symbols of an ELF64 shared object, to tell which vendor
// libraries (cuBLAS, cuDNN, ...) a candidate uses and which symbols a kernelbench extension imports.
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

#include "core/files.h"
#include "evaluator/compile.h"

namespace kf::eval {

namespace {

struct VendorLib {
  const char* name;
  const char* soname_part;
  const char* symbol_prefix;
};
// cublasLt before cublas: the more specific name wins.
constexpr VendorLib kVendors[] = {
    {"cublasLt", "libcublasLt", "cublasLt"}, {"cublas", "libcublas", "cublas"}, {"cudnn", "libcudnn", "cudnn"},
    {"cufft", "libcufft", "cufft"},          {"curand", "libcurand", "curand"}, {"cusparse", "libcusparse", "cusparse"},
    {"cusolver", "libcusolver", "cusolver"}, {"nccl", "libnccl", "nccl"},
};

template <class T>
bool read_at(const std::string& data, uint64_t off, T* out) {
  if (off > data.size() || data.size() - off < sizeof(T)) return false;
  std::memcpy(out, data.data() + off, sizeof(T));
  return true;
}

std::string cstr_at(const std::string& data, uint64_t off) {
  if (off >= data.size()) return {};
  size_t end = data.find('\0', off);
  return data.substr(off, (end == std::string::npos ? data.size() : end) - off);
}

}  // namespace

namespace {

// The DT_NEEDED names and the undefined dynamic symbols of an ELF64 shared object.
struct DynamicImports {
  std::vector<std::string> needed;
  std::vector<std::string> undefined;
};

Result<DynamicImports> dynamic_imports(const std::string& library_path) {
  auto file = read_file(library_path);
  if (!file.ok()) return file.error();
  const std::string& d = *file;
  Elf64_Ehdr eh;
  if (!read_at(d, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return make_error("compile.elf", library_path + " is not an ELF64 shared object");
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (size_t i = 0; i < sh.size(); ++i)
    if (!read_at(d, eh.e_shoff + i * sizeof(Elf64_Shdr), &sh[i]))
      return make_error("compile.elf", library_path + ": truncated section table");
  DynamicImports out;
  for (const auto& s : sh) {
    if (s.sh_type != SHT_DYNAMIC && s.sh_type != SHT_DYNSYM) continue;
    if (s.sh_link >= sh.size()) continue;
    const auto& strtab = sh[s.sh_link];
    if (s.sh_type == SHT_DYNAMIC) {
      for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= s.sh_size; off += sizeof(Elf64_Dyn)) {
        Elf64_Dyn dyn;
        if (!read_at(d, s.sh_offset + off, &dyn) || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_NEEDED) out.needed.push_back(cstr_at(d, strtab.sh_offset + dyn.d_un.d_val));
      }
    } else {
      for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        if (!read_at(d, s.sh_offset + off, &sym)) break;
        if (sym.st_shndx == SHN_UNDEF && sym.st_name != 0)
          out.undefined.push_back(cstr_at(d, strtab.sh_offset + sym.st_name));
      }
    }
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> undefined_dynamic_symbols(const std::string& library_path) {
  auto imports = dynamic_imports(library_path);
  if (!imports.ok()) return imports.error();
  return std::move(imports->undefined);
}

Result<std::vector<std::string>> vendor_libraries_used(const std::string& library_path) {
  auto imports = dynamic_imports(library_path);
  if (!imports.ok()) return imports.error();
  std::set<std::string> used;
  auto classify = [&](const std::string& s, bool soname) {
    for (const auto& v : kVendors) {
      if (soname ? s.find(v.soname_part) != std::string::npos : s.rfind(v.symbol_prefix, 0) == 0) {
        used.insert(v.name);
        return;
      }
    }
  };
  for (const auto& n : imports->needed) classify(n, true);
  for (const auto& n : imports->undefined) classify(n, false);
  return std::vector<std::string>(used.begin(), used.end());
}

std::vector<std::string> vendor_libraries_mapped(const std::string& maps_text) {
  std::vector<std::string> found;
  size_t pos = 0;
  while (pos < maps_text.size()) {
    size_t end = maps_text.find('\n', pos);
    if (end == std::string::npos) end = maps_text.size();
    std::string_view line(maps_text.data() + pos, end - pos);
    pos = end + 1;
    auto slash = line.rfind('/');
    if (slash == std::string_view::npos) continue;
    std::string_view base = line.substr(slash + 1);
    for (const auto& v : kVendors) {
      if (base.rfind(v.soname_part, 0) != 0) continue;
      // libcublas must not match libcublasLt's mapping (the table lists the longer name first).
      if (std::find(found.begin(), found.end(), v.name) == found.end()) found.push_back(v.name);
      break;
    }
  }
  return found;
}

}  // namespace kf::eval
