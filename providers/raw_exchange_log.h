#pragma once
// Optional per-call record of what went over the wire (config.raw_log_dir): the request and every
// attempt's response, with credentials removed. One JSON file per call.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "providers/http_transport.h"

namespace kf::providers {

class RawExchangeLog {
 public:
  RawExchangeLog(std::string dir, std::string config_name, const HttpRequest& request);
  void add_attempt(const HttpExchange& exchange, const std::string& body, const std::string& outcome);
  // Writes the file; failures are logged, never fatal (the log is a debugging aid).
  void write(const std::string& outcome);

 private:
  std::string dir_;
  std::string config_name_;
  nlohmann::json doc_;
};

// Headers that carry credentials.
bool is_credential_header(const std::string& name);

}  // namespace kf::providers
