#include "verdict/verdict_kind.h"

#include <array>
#include <utility>

namespace kf::eval {
namespace {

constexpr std::array<std::pair<VerdictKind, std::string_view>, 9> kNames{{
    {VerdictKind::correct, "correct"},
    {VerdictKind::incorrect, "incorrect"},
    {VerdictKind::compile_error, "compile_error"},
    {VerdictKind::runtime_error, "runtime_error"},
    {VerdictKind::timeout, "timeout"},
    {VerdictKind::rejected, "rejected"},
    {VerdictKind::harness_error, "harness_error"},
    {VerdictKind::no_code, "no_code"},
    {VerdictKind::unknown, "unknown"},
}};

}  // namespace

std::string to_string(VerdictKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return std::string(name);
  return "unknown";
}

std::optional<VerdictKind> parse_verdict_kind(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name && k != VerdictKind::unknown) return k;
  return std::nullopt;
}

VerdictKind recorded_kind(const std::optional<std::string>& name, const std::optional<bool>& correct) {
  if (correct.value_or(false)) return VerdictKind::correct;
  const auto kind = name ? parse_verdict_kind(*name) : std::nullopt;
  if (!kind || *kind == VerdictKind::correct) return VerdictKind::unknown;
  return *kind;
}

}  // namespace kf::eval
