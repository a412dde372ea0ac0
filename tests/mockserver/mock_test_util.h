#pragma once
// Helpers shared by the mock-server tests: an in-process server, a raw HTTP client, SSE splitting.
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mockserver/server.h"

namespace kf::mock::testing {

inline std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("kforge-mock-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline std::vector<nlohmann::json> read_log(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

struct Sse {
  std::string event;
  std::string data;
};

// Splits an SSE body (LF framing) into events; comment lines are dropped, data lines joined with "\n".
inline std::vector<Sse> parse_sse(const std::string& body) {
  std::vector<Sse> events;
  std::istringstream in(body);
  std::string line;
  Sse current;
  bool have = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (have) events.push_back(current);
      current = {};
      have = false;
    } else if (line[0] == ':') {
      continue;
    } else if (line.rfind("event: ", 0) == 0) {
      current.event = line.substr(7);
      have = true;
    } else if (line.rfind("data: ", 0) == 0) {
      current.data += (current.data.empty() ? "" : "\n") + line.substr(6);
      have = true;
    }
  }
  if (have) events.push_back(current);
  return events;
}

class ScriptedServer {
 public:
  explicit ScriptedServer(const std::string& script_json, uint64_t seed = 0)
      : log_path_(temp_path("log-" + std::to_string(counter()++) + ".jsonl")) {
    std::filesystem::remove(log_path_);
    auto script = parse_script(nlohmann::json::parse(script_json));
    if (!script) throw std::runtime_error(script.error().message);
    server_ = std::make_unique<MockServer>(std::move(*script), ServerOptions{"127.0.0.1", 0, log_path_, 256, seed});
    auto started = server_->start_in_background();
    if (!started) throw std::runtime_error(started.error().message);
  }

  httplib::Result post(const std::string& path, const nlohmann::json& body, const httplib::Headers& headers = {}) {
    httplib::Client client("127.0.0.1", server_->port());
    client.set_read_timeout(30, 0);
    return client.Post(path.c_str(), headers, body.dump(), "application/json");
  }

  std::vector<nlohmann::json> log() const { return read_log(log_path_); }
  const std::string& log_path() const { return log_path_; }
  int port() const { return server_->port(); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string log_path_;
  std::unique_ptr<MockServer> server_;
};

inline nlohmann::json chat_body(const std::string& prompt, bool stream, bool include_usage = true) {
  nlohmann::json b = {
      {"model", "test-model"},
      {"messages", {{{"role", "system"}, {"content", "be brief"}}, {{"role", "user"}, {"content", prompt}}}},
      {"stream", stream}};
  if (stream && include_usage) b["stream_options"] = {{"include_usage", true}};
  return b;
}

}  // namespace kf::mock::testing
