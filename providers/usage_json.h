#pragma once
// A reply's token usage as kforge writes it into the corpus and `kforge ask --json`.

#include <nlohmann/json.hpp>

#include "providers/provider.h"

namespace kf::providers {

nlohmann::json usage_json(const Usage& usage);

}  // namespace kf::providers
