#pragma once
// What a request is answered by, beyond the entry's regex: the request's key (a marker found in its text,
// e.g. the parent kernel a search prompt shows) and the seeded draw among an entry's choices.
// Rules: docs/mock-server.md, "Keys" and "Seeded choices".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mockserver/request.h"
#include "mockserver/script.h"

namespace kf::mock {

// Lines longer than this are cut before the key regex sees them: the request is hostile, and a backtracking
// regex over an unbounded line could take unbounded time or stack.
inline constexpr size_t kKeyLineLimit = 4096;

// The request's key under `rule`, or nullopt when no place holds a matching line.
std::optional<std::string> find_key(const KeyRule& rule, const MockRequest& request);

// Index into `choices` of the draw number `draw` (0, 1, …) of the entry `entry_index` for the key `key`:
// a pure function of its arguments, so a run with the same seed and the same order of requests per
// (entry, key) gets the same answers whatever else it asks in between. `choices` must not be empty.
size_t draw_choice(const std::vector<ScriptChoice>& choices, uint64_t seed, size_t entry_index, const std::string& key,
                   int64_t draw);

}  // namespace kf::mock
