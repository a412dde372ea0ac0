#pragma once
// The supervisor's side of the oracle (evaluator/oracle/oracle.py): a trusted, long-lived python
// process speaking JSON lines over two pipes. It runs as a sandbox job with looser limits (no
// namespaces: it shares device memory with the runner and needs the python installation, wherever that
// is), without kforge's secrets in its environment. Restarted on the next request after it dies.
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>

#include "core/result.h"
#include "evaluator/json_lines.h"
#include "sandbox/launcher.h"

namespace kf::eval {

class OracleClient {
 public:
  // `env_overrides` replace variables of the oracle's environment (e.g. CUDA_VISIBLE_DEVICES to pin a GPU).
  OracleClient(std::string python, std::string script, std::string log_path,
               std::map<std::string, std::string> env_overrides = {});
  ~OracleClient();
  OracleClient(const OracleClient&) = delete;
  OracleClient& operator=(const OracleClient&) = delete;

  // Sends one request and waits for its response. Errors: "oracle.problem" (the problem file is at
  // fault: bad input), "oracle.candidate" (the runner tampered with a shared buffer), "oracle.harness" (anything else;
  // the message carries the oracle's account).
  Result<nlohmann::json> request(const nlohmann::json& req, double timeout_s);
  void stop();
  const std::string& python() const { return python_; }

 private:
  Status start();
  std::string log_tail() const;
  // Why the oracle stopped answering (its failed start, memory limit or log), then stop().
  std::string exit_account();

  std::string python_, script_, log_path_;
  std::map<std::string, std::string> env_overrides_;
  std::unique_ptr<sandbox::Job> job_;
  JsonLinesChannel channel_;
};

}  // namespace kf::eval
