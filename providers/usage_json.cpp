#include "providers/usage_json.h"

namespace kf::providers {

nlohmann::json usage_json(const Usage& u) {
  return {{"input_tokens", u.input_tokens},
          {"cached_input_tokens", u.cached_input_tokens},
          {"output_tokens", u.output_tokens},
          {"reasoning_tokens", u.reasoning_tokens},
          {"reasoning_tokens_source", to_string(u.reasoning_source)}};
}

}  // namespace kf::providers
