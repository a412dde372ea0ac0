// ${NAME} and ${NAME:-default} in configuration values (e.g. base_url), replaced from the environment.
#include <cctype>
#include <cstdlib>

#include "providers/model_config.h"

namespace kf::providers {

Result<std::string> expand_env_references(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t start = text.find("${", pos);
    if (start == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, start - pos);
    size_t end = text.find('}', start);
    if (end == std::string::npos) {
      return make_error("config.env", "unterminated ${…} reference: write ${NAME} or ${NAME:-default}");
    }
    std::string inner = text.substr(start + 2, end - start - 2);
    std::string name = inner;
    std::optional<std::string> fallback;
    if (size_t sep = inner.find(":-"); sep != std::string::npos) {
      name = inner.substr(0, sep);
      fallback = inner.substr(sep + 2);
    }
    bool valid_name = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) valid_name = valid_name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!valid_name) return make_error("config.env", "'${" + inner + "}' does not name an environment variable");
    const char* value = std::getenv(name.c_str());
    if (value && *value) {
      out += value;
    } else if (fallback) {
      out += *fallback;
    } else {
      return make_error("config.env", "environment variable " + name + " is not set: export it, or write ${" + name +
                                          ":-default} in the file");
    }
    pos = end + 1;
  }
  return out;
}

}  // namespace kf::providers
