#pragma once
// Runs `kforge mock-server` as a child process for integration tests: writes the script, waits for
// the port, reads the request log, and stops the server on destruction.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/child_process.h"
#include "tests/support/command.h"

namespace kf::testing {

class MockServerProcess {
 public:
  // Starts a server for `script` with its files in `dir`. Fails the calling test when it cannot.
  static std::unique_ptr<MockServerProcess> start(const nlohmann::json& script, const std::string& dir);
  MockServerProcess(const MockServerProcess&) = delete;
  MockServerProcess& operator=(const MockServerProcess&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The request log, one JSON object per request received.
  std::vector<nlohmann::json> requests() const;
  // Stops the server (SIGTERM, waits); safe to call twice.
  void stop();

  std::string log_path;
  std::string stdout_path;
  std::string stderr_path;
  std::string script_path;

 private:
  MockServerProcess() = default;
  std::unique_ptr<BackgroundChild> child_;
  int port_ = 0;
};

}  // namespace kf::testing
