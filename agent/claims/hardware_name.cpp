#include "agent/claims/hardware_name.h"

#include <cctype>
#include <set>
#include <vector>

namespace kf::agent {
namespace {

std::vector<std::string> upper_tokens(const std::string& name) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      cur += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool has_digit(const std::string& t) {
  for (char c : t)
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return false;
}

// Tokens that name a form factor or memory size, not the model ("SXM4", "PCIE", "40GB", "80G").
bool variant_token(const std::string& t) {
  static const std::set<std::string> words = {"NVIDIA", "GEFORCE", "RTX", "TESLA", "QUADRO", "PCIE", "NVL", "HBM3"};
  if (words.count(t)) return true;
  if (t.rfind("SXM", 0) == 0) return true;
  if (t.size() > 2 && (t.compare(t.size() - 2, 2, "GB") == 0)) return true;
  return false;
}

}  // namespace

std::string gpu_model(const std::string& name) {
  for (const auto& t : upper_tokens(name)) {
    if (variant_token(t) || !has_digit(t) || t.size() > 8) continue;
    return t;
  }
  return "";
}

std::optional<bool> same_gpu(const std::string& a, const std::string& b) {
  const std::string ma = gpu_model(a), mb = gpu_model(b);
  if (ma.empty() || mb.empty()) return std::nullopt;
  return ma == mb;
}

}  // namespace kf::agent
