#pragma once
// Runs `kforge mock-server` as a child process for integration tests: writes the script, waits for
// the port, reads the request log, and stops the server on destruction.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kf::testing {

class MockServerProcess {
 public:
  // Starts a server for `script` with its files in `dir`. Fails the calling test when it cannot.
  static std::unique_ptr<MockServerProcess> start(const nlohmann::json& script, const std::string& dir);
  ~MockServerProcess();
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
  pid_t pid_ = -1;
  int port_ = 0;
};

// The kforge binary under test: $KFORGE_BIN when set, else the build tree's.
std::string kforge_binary();
// A fresh empty directory under the system temp folder.
std::string make_temp_dir(const std::string& prefix);
// Contents of every regular file under `dir` (recursively), as (path, text).
std::vector<std::pair<std::string, std::string>> read_tree(const std::string& dir);
std::string slurp(const std::string& path);

}  // namespace kf::testing
