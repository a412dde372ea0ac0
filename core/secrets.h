#pragma once
// Registry of secret values (API keys) known to this process. Anything that leaves the process as
// text — logs, error messages, stored requests, corpus records — goes through redact() first.
#include <string>
#include <string_view>

namespace kf::secrets {

// Remembers `value` as secret. Values shorter than 8 characters are ignored (too likely to collide
// with ordinary text) but are never printed by kforge either, since keys are only read, not echoed.
void add(std::string value);

// Returns `text` with every registered secret replaced by "[REDACTED]".
std::string redact(std::string_view text);

}  // namespace kf::secrets
