#include "core/hash.h"

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

namespace kf {
namespace {
struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

std::string to_hex(const unsigned char* d, unsigned n) {
  static const char* digits = "0123456789abcdef";
  std::string s(n * 2, '0');
  for (unsigned i = 0; i < n; ++i) {
    s[2 * i] = digits[d[i] >> 4];
    s[2 * i + 1] = digits[d[i] & 15];
  }
  return s;
}
}  // namespace

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned n = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &n, EVP_sha256(), nullptr);
  return to_hex(md.data(), n);
}

Result<std::string> sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("io.read", "cannot read '" + path + "': check that it exists and is readable");
  std::unique_ptr<EVP_MD_CTX, CtxFree> ctx(EVP_MD_CTX_new());
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned n = 0;
  EVP_DigestFinal_ex(ctx.get(), md.data(), &n);
  return to_hex(md.data(), n);
}

}  // namespace kf
