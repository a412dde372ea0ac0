// The oracle's reading of a kernelbench runner's record of extension calls and of the replayer's results
// (evaluator/oracle/oracle.py: replay_prepare, replay_judge; docs/candidates.md, "Attribution"). Both are written
// by the candidate's processes: every damaged, oversized, linked or mistyped file must end as "not replayable" /
// "not trusted" with a reason, never as an error of the oracle's (which would be a harness_error). Label
// integration: a real oracle process with torch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "evaluator/evaluator.h"
#include "evaluator/oracle_client.h"
#include "test_support.h"

using namespace kf::eval;
using namespace kf::eval::test;
namespace fs = std::filesystem;

namespace {

class ReplayRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string python = python_with_torch();
    ASSERT_FALSE(python.empty()) << kNoTorchAdvice;
    root_ = fs::temp_directory_path() / ("kforge-replay-test-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "job" / "record");
    fs::create_directories(root_ / "out");
    oracle_ =
        std::make_unique<OracleClient>(python, src("evaluator/oracle/oracle.py"), (root_ / "oracle.log").string());
    ASSERT_TRUE(ask({{"op", "load"},
                     {"path", src("tests/adversarial/problems/relu.py")},
                     {"precision", "fp32"},
                     {"backend", "host"},
                     {"export_state", false}})
                    .ok());
    ASSERT_TRUE(
        ask({{"op", "setup"}, {"dir", (root_ / "job").string()}, {"seeds", nlohmann::json::array({7})}, {"slots", 1}})
            .ok());
    ASSERT_TRUE(ask({{"op", "prepare"}, {"seed", 7}, {"variant", "own"}}).ok());
  }
  void TearDown() override {
    if (oracle_) oracle_->stop();
    fs::remove_all(root_);
  }
  kf::Result<nlohmann::json> ask(const nlohmann::json& req) { return oracle_->request(req, 120); }
  void write(const fs::path& p, const std::string& text) {
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << text;
  }
  // A well-formed record of one call f(x) -> y of 256x128 float32 tensors (relu.py's shape).
  void write_record(nlohmann::json call = nullptr) {
    const std::string t(256 * 128 * 4, '\0');
    for (int i = 0; i < 3; ++i) write(root_ / "job" / "record" / ("t" + std::to_string(i) + ".bin"), t);
    if (call.is_null())
      call = nlohmann::json::parse(
          R"({"ext": "K", "fn": "f", "args": [{"tensor": 0}], "after": [1], "returns": [{"tensor": 2}]})");
    const auto spec = nlohmann::json::parse(R"({"dtype": "float32", "shape": [256, 128]})");
    nlohmann::json record = nlohmann::json::object();
    record["calls"] = nlohmann::json::array({call});
    record["tensors"] = nlohmann::json::array({spec, spec, spec});
    record["unsupported"] = "";
    write(root_ / "job" / "record" / "calls.json", record.dump());
  }
  // replay_prepare's answer, which must be an answer (not an oracle error); "" when replayable.
  std::string prepare() {
    auto r = ask({{"op", "replay_prepare"},
                  {"record", (root_ / "job" / "record").string()},
                  {"out", (root_ / "out").string()},
                  {"extensions", nlohmann::json::array({"K"})},
                  {"max_bytes", 64 << 20}});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    if (!r.ok()) return "oracle error";
    if (r->value("replayable", false)) return "";
    EXPECT_FALSE(r->value("why", std::string()).empty());
    return r->value("why", std::string("?"));
  }
  fs::path root_;
  std::unique_ptr<OracleClient> oracle_;
};

TEST_F(ReplayRecord, AWellFormedRecordIsReplayable) {
  write_record();
  EXPECT_EQ(prepare(), "");
  EXPECT_TRUE(fs::exists(root_ / "out" / "replay.json"));
  EXPECT_EQ(fs::file_size(root_ / "out" / "in0.bin"), 256u * 128 * 4);
}

TEST_F(ReplayRecord, DamagedRecordsAreRefusedWithAReason) {
  EXPECT_NE(prepare(), "");  // no record at all
  write_record();
  write(root_ / "job" / "record" / "calls.json", "{\"calls\": [");
  EXPECT_NE(prepare(), "");  // not JSON
  write(root_ / "job" / "record" / "calls.json", std::string("\xff\xfe{}", 4));
  EXPECT_NE(prepare(), "");  // not UTF-8
  write(root_ / "job" / "record" / "calls.json", "[1, 2]");
  EXPECT_NE(prepare(), "");  // not an object
  write(root_ / "job" / "record" / "calls.json", std::string(5 << 20, ' '));
  EXPECT_NE(prepare(), "");  // over the cap
  fs::remove(root_ / "job" / "record" / "calls.json");
  fs::create_symlink("/etc/hostname", root_ / "job" / "record" / "calls.json");
  EXPECT_NE(prepare(), "");  // a link
  write_record();
  write(root_ / "job" / "record" / "t1.bin", "short");
  EXPECT_NE(prepare(), "");  // a tensor file shorter than its description
  write_record();
  fs::remove(root_ / "job" / "record" / "t2.bin");
  fs::create_directory(root_ / "job" / "record" / "t2.bin");
  EXPECT_NE(prepare(), "");  // not a regular file
}

TEST_F(ReplayRecord, MistypedCallsAreRefusedWithAReason) {
  const auto good = nlohmann::json::parse(
      R"({"ext": "K", "fn": "f", "args": [{"tensor": 0}], "after": [1], "returns": [{"tensor": 2}]})");
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, std::string>>{{"ext", R"("not-built")"},
                                                        {"ext", "5"},
                                                        {"fn", "5"},
                                                        {"fn", R"("__init__")"},
                                                        {"fn", R"("a b")"},
                                                        {"args", R"("x")"},
                                                        {"args", R"([{"tensor": 99}])"},
                                                        {"args", R"([{"tensor": true}])"},
                                                        {"args", R"([{"int": 1.5}])"},
                                                        {"args", R"([{"tensor": 0, "int": 1}])"},
                                                        {"after", "[null]"},
                                                        {"returns", R"([{"list": [{"tensor": 0}]}])"}}) {
    nlohmann::json call = good;
    call[field] = nlohmann::json::parse(value);
    write_record(call);
    EXPECT_NE(prepare(), "") << field << " = " << value;
  }
  // Shapes past the byte budget, and the runner's own account of an incomplete record.
  write_record();
  write(root_ / "job" / "record" / "calls.json",
        R"({"calls": [{"ext": "K", "fn": "f", "args": [{"tensor": 0}], "after": [0], "returns": []}],
            "tensors": [{"dtype": "float32", "shape": [1048576, 1048576]}]})");
  EXPECT_NE(prepare(), "");
  write(root_ / "job" / "record" / "calls.json", R"({"calls": [], "tensors": [], "unsupported": "keyword arguments"})");
  EXPECT_NE(prepare(), "");
}

TEST_F(ReplayRecord, DamagedReplayResultsAreNotTrusted) {
  auto judge = [&]() -> nlohmann::json {
    auto r = ask({{"op", "replay_judge"},
                  {"dir", (root_ / "out").string()},
                  {"tolerances", nlohmann::json::parse(R"({"float32": {"rtol": 1e-4, "atol_scale": 1e-5}})")},
                  {"max_bytes", 64 << 20}});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : nlohmann::json::object();
  };
  EXPECT_FALSE(judge().value("trusted", true));  // no record prepared
  for (const std::string& result :
       {std::string("garbage"), std::string("{\"calls\": 5, \"tensors\": []}"),
        std::string("{\"calls\": [{\"returns\": [], \"after\": [], \"free\": []}], \"tensors\": []}"),
        std::string("{\"calls\": [{\"returns\": [{\"tensor\": 7}], \"after\": [0], \"free\": []}], "
                    "\"tensors\": [{\"dtype\": \"float32\", \"shape\": [256, 128]}]}")}) {
    write_record();
    ASSERT_EQ(prepare(), "");
    write(root_ / "out" / "result.json", result);
    write(root_ / "out" / "r0.bin", std::string(256 * 128 * 4, '\0'));
    auto j = judge();
    EXPECT_FALSE(j.value("trusted", true)) << result;
    EXPECT_FALSE(j.value("why", std::string()).empty()) << result;
  }
}

}  // namespace
