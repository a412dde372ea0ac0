// End-to-end tests of the kforge binary: `mock-server`, `configs validate` and `ask` over loopback.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/child_process.h"
#include "mock_test_util.h"
#include "tests/support/command.h"

namespace kf::mock::testing {
namespace {

const std::string kSource = KFORGE_TEST_SOURCE_DIR;
const std::string kKforge = std::string(KFORGE_TEST_BINARY_DIR) + "/kforge";

struct Ran {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Ran run(const std::string& command) {
  const auto r = ::kf::testing::run_shell(command + " 2>&1");
  return {r.exit_code, r.out};
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

TEST(MockCliConfigs, ValidateShippedConfigsExitsZero) {
  std::string cmd = kKforge + " configs validate";
  for (const char* dir : {"configs", "configs/demo"}) {
    for (const char* name : {"openai-o-series-responses", "anthropic-claude-thinking", "qwen-coder-vllm",
                             "deepseek-r1-sglang", "gpt-oss-ollama"}) {
      cmd += " " + quote(kSource + "/" + dir + "/" + name + ".json");
    }
  }
  auto r = run(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  size_t valid = 0;
  for (size_t pos = 0; (pos = r.output.find(": valid\n", pos)) != std::string::npos; ++pos) ++valid;
  EXPECT_EQ(valid, 10u) << r.output;
}

TEST(MockCliConfigs, ValidateBrokenFilePrintsFileFieldReasonAndExitsTwo) {
  const std::string broken = kSource + "/tests/mockserver/fixtures/broken-types.json";
  const std::string good = kSource + "/configs/qwen-coder-vllm.json";
  auto r = run(kKforge + " configs validate " + quote(good) + " " + quote(broken));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(broken + ": generation.top_p: must be <= 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(broken + ": colour: unknown field"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(good + ": valid"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("sk-this-is"), std::string::npos) << "a pasted key was echoed";
  auto warn = run(kKforge + " configs validate " +
                  quote(kSource + "/tests/mockserver/fixtures/reasoning-temperature-warning.json"));
  EXPECT_EQ(warn.exit_code, 0) << warn.output;
  EXPECT_NE(warn.output.find("warning"), std::string::npos) << warn.output;
}

TEST(MockCliServer, CheckValidatesScripts) {
  auto good = run(kKforge + " mock-server --check");
  EXPECT_EQ(good.exit_code, 0) << good.output;
  const std::string bad = temp_path("bad-script.json");
  std::ofstream(bad) << R"([{"answer": 1}, {"stauts": 500}])";
  auto r = run(kKforge + " mock-server --check --script " + quote(bad));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("entry 0: answer: must be a string"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("entry 1: stauts: unknown field"), std::string::npos) << r.output;
}

TEST(MockCliServer, ProcessWritesPortFileServesLogsAndStopsOnSigterm) {
  const std::string port_file = temp_path("port.txt");
  const std::string log_file = temp_path("process-log.jsonl");
  const std::string out_file = temp_path("process-out.txt");
  std::filesystem::remove(port_file);
  std::filesystem::remove(log_file);
  auto server = BackgroundChild::start(
      ChildCommand{
          {kKforge, "mock-server", "--port", "0", "--port-file", port_file, "--log", log_file}, {}, false, "", 0},
      out_file, "/dev/stderr");
  ASSERT_TRUE(server.ok()) << server.error().message;
  int port = 0;
  for (int i = 0; i < 600 && port == 0; ++i) {
    std::ifstream in(port_file);
    if (!(in >> port)) {
      port = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_GT(port, 0) << "mock-server did not write its port file";
  httplib::Client client("127.0.0.1", port);
  auto res = client.Post("/v1/chat/completions", chat_body("write a relu kernel", false).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  auto content = nlohmann::json::parse(res->body)["choices"][0]["message"]["content"].get<std::string>();
  EXPECT_NE(content.find("```cuda"), std::string::npos);
  EXPECT_EQ((*server)->stop(SIGTERM), 0);
  std::ifstream out(out_file);
  std::string printed((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_NE(printed.find("listening on http://127.0.0.1:" + std::to_string(port)), std::string::npos) << printed;
  EXPECT_EQ(read_log(log_file).size(), 1u);
}

constexpr const char* kAskScript = R"([
  {"match": "unauthorized", "status": 401},
  {"answer": "Use a grid-stride loop.", "reasoning": "Elementwise op.", "times": "unlimited",
   "usage": {"input": 100, "cached": 40, "output": 20, "reasoning": 30}}])";

std::string ask(const ScriptedServer& server, const std::string& config, const std::string& extra,
                const std::string& prompt) {
  return "KFORGE_MOCK_URL=http://127.0.0.1:" + std::to_string(server.port()) + " " + kKforge + " ask --config " +
         quote(kSource + "/configs/demo/" + config + ".json") + " " + extra + " " + quote(prompt);
}

TEST(MockCliAsk, EveryDemoConfigStreamingAndNot) {
  ScriptedServer server(kAskScript);
  for (const char* config : {"openai-o-series-responses", "anthropic-claude-thinking", "qwen-coder-vllm",
                             "deepseek-r1-sglang", "gpt-oss-ollama"}) {
    for (const char* mode : {"", "--no-stream"}) {
      auto r = run(ask(server, config, mode, "write relu"));
      EXPECT_EQ(r.exit_code, 0) << config << " " << mode << "\n" << r.output;
      EXPECT_NE(r.output.find("Use a grid-stride loop."), std::string::npos) << config << " " << mode << "\n"
                                                                             << r.output;
      EXPECT_NE(r.output.find("reasoning: 15 characters"), std::string::npos) << config << " " << mode << "\n"
                                                                              << r.output;
      EXPECT_NE(r.output.find("usage: input 100 (cached 40)"), std::string::npos) << config << " " << mode << "\n"
                                                                                  << r.output;
    }
  }
  // OpenAI prices 1.10 / 0.275 cached / 4.40 output and reasoning: 60*1.10 + 40*0.275 + 20*4.40 + 30*4.40 = 297 µ$.
  auto r = run(ask(server, "openai-o-series-responses", "", "write relu"));
  EXPECT_NE(r.output.find("output 20, reasoning 30 tokens"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cost: $0.000297"), std::string::npos) << r.output;
  auto log = server.log();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back()["api"], "openai-responses");
}

TEST(MockCliAsk, BaseUrlFlagOverridesTheConfig) {
  ScriptedServer server(kAskScript);
  auto r = run("KFORGE_MOCK_URL=http://127.0.0.1:1 " + kKforge + " ask --config " +
               quote(kSource + "/configs/demo/qwen-coder-vllm.json") +
               " --base-url http://127.0.0.1:" + std::to_string(server.port()) + "/v1 hello");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(server.log().size(), 1u);
}

TEST(MockCliAsk, ProviderErrorExitsOneAndBadConfigTwo) {
  ScriptedServer server(kAskScript);
  auto r = run(ask(server, "qwen-coder-vllm", "", "unauthorized please"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("auth"), std::string::npos) << r.output;
  auto bad = run(kKforge + " ask --config " + quote(kSource + "/tests/mockserver/fixtures/broken-types.json") + " hi");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("generation.top_p"), std::string::npos) << bad.output;
}

TEST(MockCliAsk, PlantedKeyIsSentButNeverPrintedOrLogged) {
  ScriptedServer server(kAskScript);
  const std::string key = "sk-kforge-planted-key-5f2d9c1e8a7b6";
  auto doc = nlohmann::json::parse(std::ifstream(kSource + "/configs/demo/openai-o-series-responses.json"));
  doc["api_key_env"] = "KFORGE_TEST_PLANTED_KEY";
  const std::string config = temp_path("planted-key-config.json");
  std::ofstream(config) << doc.dump(2);
  auto r = run("KFORGE_TEST_PLANTED_KEY=" + key + " KFORGE_MOCK_URL=http://127.0.0.1:" + std::to_string(server.port()) +
               " " + kKforge + " -v ask --config " + quote(config) + " hello");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find(key), std::string::npos) << "the key was printed";
  auto log = server.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0]["auth_present"].get<bool>());
  std::ifstream in(server.log_path());
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.find(key), std::string::npos) << "the key reached the server log";
}

}  // namespace
}  // namespace kf::mock::testing
