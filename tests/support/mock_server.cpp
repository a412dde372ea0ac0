#include "tests/support/mock_server.h"

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace kf::testing {

std::unique_ptr<MockServerProcess> MockServerProcess::start(const nlohmann::json& script, const std::string& dir) {
  std::unique_ptr<MockServerProcess> server(new MockServerProcess());
  server->script_path = dir + "/script.json";
  server->log_path = dir + "/requests.jsonl";
  server->stdout_path = dir + "/server.stdout";
  server->stderr_path = dir + "/server.stderr";
  const std::string port_file = dir + "/port";
  std::ofstream(server->script_path) << script.dump(2);

  const std::string bin = kforge_binary();
  ChildCommand command{{bin, "mock-server", "--script", server->script_path, "--port", "0", "--port-file", port_file,
                        "--log", server->log_path, "--threads", "16"},
                       {},
                       false,
                       "",
                       0};
  auto child = BackgroundChild::start(command, server->stdout_path, server->stderr_path);
  if (!child) {
    ADD_FAILURE() << child.error().message << " (build the kforge target, or set KFORGE_BIN)";
    return nullptr;
  }
  server->child_ = std::move(*child);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(port_file);
    int port = 0;
    if (in >> port && port > 0) {
      server->port_ = port;
      return server;
    }
    if (!server->child_->running()) {
      ADD_FAILURE() << "kforge mock-server exited early: " << slurp(server->stderr_path);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "kforge mock-server did not write its port file within 20 s";
  return nullptr;
}

void MockServerProcess::stop() {
  if (child_) child_->stop(SIGTERM);
}

std::vector<nlohmann::json> MockServerProcess::requests() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace kf::testing
