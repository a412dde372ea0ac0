// The official Python SDKs (openai, anthropic, google-genai, pinned in scripts/python-test-requirements.txt)
// against a real `kforge mock-server`: for every API kind it speaks, streaming and not, the SDK reads the
// scripted answer, reasoning, usage and finish reason exactly, and a scripted 429 raises the SDK's own
// rate-limit error. The mock is only worth something while clients that users really run accept it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/support/command.h"
#include "tests/support/mock_server.h"

namespace {

using kf::testing::quote;

// kExpected of sdk_clients.py, in kforge's accounting (docs/mock-server.md, "Usage").
nlohmann::json script() {
  const std::string answer =
      "Hello from the mock: \u00fcn\u00efcode \u2713 and a kernel ```cuda\n__global__ void k() {}\n```";
  return nlohmann::json::array({{{"match", "sdk probe"},
                                 {"answer", answer},
                                 {"reasoning", "First I think about tiling, then about the epilogue."},
                                 {"usage", {{"input", 40}, {"cached", 8}, {"output", 12}, {"reasoning", 7}}},
                                 {"chunk_chars", 5}},
                                {{"match", "rate limit probe"}, {"status", 429}}});
}

// Which SDK package speaks each API kind.
std::string sdk_module(const std::string& api) {
  if (api == "anthropic") return "anthropic";
  if (api == "gemini") return "google.genai";
  return "openai";
}

class OfficialSdk : public ::testing::TestWithParam<std::tuple<std::string, bool>> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(kf::testing::make_temp_dir("kforge-sdk-test"));
    server_ = kf::testing::MockServerProcess::start(script(), *dir_).release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    python_ = kf::testing::python_with_torch();
    ASSERT_FALSE(python_.empty()) << kf::testing::kNoTorchAdvice;
    const auto module = sdk_module(std::get<0>(GetParam()));
    ASSERT_EQ(kf::testing::run_shell(quote(python_) + " -c " + quote("import " + module) + " 2>/dev/null").exit_code, 0)
        << python_ << " has no " << module << ": scripts/python-setup.sh --with-tests installs the pinned SDKs";
  }
  // Runs the SDK client; its stderr names every field that differed.
  int run_client(const std::string& extra) {
    const auto& [api, stream] = GetParam();
    return kf::testing::run_shell(quote(python_) + " " +
                                  quote(kf::testing::source_path("tests/mockserver/sdk_clients.py")) + " --base-url " +
                                  quote(server_->base_url()) + " --api " + api + (stream ? " --stream" : "") + extra)
        .exit_code;
  }
  static std::string* dir_;
  static kf::testing::MockServerProcess* server_;
  std::string python_;
};
std::string* OfficialSdk::dir_ = nullptr;
kf::testing::MockServerProcess* OfficialSdk::server_ = nullptr;

TEST_P(OfficialSdk, ReadsTheScriptedReplyExactly) {
  EXPECT_EQ(run_client(""), 0) << "see the client's stderr above";
  const auto& [api, stream] = GetParam();
  bool seen = false;
  for (const auto& r : server_->requests())
    seen = seen || (r.value("api", "") == api && r.value("stream", !stream) == stream);
  EXPECT_TRUE(seen) << "the server logged no " << api << (stream ? " streaming" : "") << " request";
}

TEST_P(OfficialSdk, RaisesItsOwnRateLimitErrorOnA429) { EXPECT_EQ(run_client(" --error"), 0); }

INSTANTIATE_TEST_SUITE_P(EveryApiKind, OfficialSdk,
                         ::testing::Combine(::testing::Values("openai-chat", "openai-responses", "anthropic", "gemini"),
                                            ::testing::Bool()),
                         [](const auto& param_info) {
                           std::string name =
                               std::get<0>(param_info.param) + (std::get<1>(param_info.param) ? "_stream" : "");
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
