#pragma once
// The supervisor's side of the oracle (evaluator/oracle/oracle.py): a trusted, long-lived python
// process speaking JSON lines. Restarted on the next request after it dies.
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <string>

#include "core/result.h"

namespace kf::eval {

class OracleClient {
 public:
  OracleClient(std::string python, std::string script, std::string log_path);
  ~OracleClient();
  OracleClient(const OracleClient&) = delete;
  OracleClient& operator=(const OracleClient&) = delete;

  // Sends one request and waits for its response. Errors: "oracle.problem" (the problem file is at
  // fault: bad input), "oracle.harness" (anything else; the message carries the oracle's account).
  Result<nlohmann::json> request(const nlohmann::json& req, double timeout_s);
  void stop();
  const std::string& python() const { return python_; }

 private:
  Status start();
  std::string log_tail() const;

  std::string python_, script_, log_path_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string pending_;
};

}  // namespace kf::eval
