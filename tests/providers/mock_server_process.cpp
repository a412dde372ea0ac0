#include "mock_server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

extern char** environ;

namespace kf::testing {

std::string kforge_binary() {
  if (const char* bin = std::getenv("KFORGE_BIN"); bin && *bin) return bin;
  return KFORGE_TEST_BINARY_DIR "/kforge";
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  return pattern;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::pair<std::string, std::string>> read_tree(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) out.emplace_back(entry.path().string(), slurp(entry.path().string()));
  }
  return out;
}

std::unique_ptr<MockServerProcess> MockServerProcess::start(const nlohmann::json& script, const std::string& dir) {
  std::unique_ptr<MockServerProcess> server(new MockServerProcess());
  server->script_path = dir + "/script.json";
  server->log_path = dir + "/requests.jsonl";
  server->stdout_path = dir + "/server.stdout";
  server->stderr_path = dir + "/server.stderr";
  const std::string port_file = dir + "/port";
  std::ofstream(server->script_path) << script.dump(2);

  const std::string bin = kforge_binary();
  std::vector<std::string> args = {bin, "mock-server", "--script", server->script_path, "--port", "0",
                                   "--port-file", port_file, "--log", server->log_path, "--threads", "16"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, server->stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, server->stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int rc = posix_spawn(&server->pid_, bin.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << bin << " (build the kforge target, or set KFORGE_BIN)";
    server->pid_ = -1;
    return nullptr;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(port_file);
    int port = 0;
    if (in >> port && port > 0) {
      server->port_ = port;
      return server;
    }
    int status = 0;
    if (waitpid(server->pid_, &status, WNOHANG) == server->pid_) {
      server->pid_ = -1;
      ADD_FAILURE() << "kforge mock-server exited early: " << slurp(server->stderr_path);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "kforge mock-server did not write its port file within 20 s";
  return nullptr;
}

void MockServerProcess::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

MockServerProcess::~MockServerProcess() { stop(); }

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
