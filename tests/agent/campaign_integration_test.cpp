// `kforge run` end to end over loopback: the real scripted model server (kforge mock-server), the real
// evaluator on the host backend (g++ candidates, CPU torch), real processes. Label: integration.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/child_process.h"
#include "tests/support/command.h"
#include "tests/support/mock_server.h"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kKforge = std::string(KFORGE_TEST_BINARY_DIR) + "/kforge";
const std::string kDemo = std::string(KFORGE_TEST_SOURCE_DIR) + "/configs/problems/demo";

using kf::testing::kNoTorchAdvice;
using kf::testing::python_with_torch;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json> read_jsonl(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

std::string kernel_block(const std::string& body) {
  return "```cpp\n#include \"kforge.h\"\nextern \"C\" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* "
         "out, int32_t n_out, void*) {\n  const float* x = static_cast<const float*>(in[0].data);\n  float* y = "
         "static_cast<float*>(out[0].data);\n  int64_t n = 1;\n  for (int d = 0; d < in[0].ndim; ++d) n *= "
         "in[0].shape[d];\n" +
         body + "\n  return 0;\n}\n```\n";
}
const std::string kRelu = kernel_block("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;");

class Campaign : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_with_torch();
    ASSERT_FALSE(python_.empty()) << kNoTorchAdvice;
    dir_ = fs::temp_directory_path() / ("kforge-agent-it-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    stop_server();
    if (!HasFailure()) fs::remove_all(dir_);
  }

  void start_server(const json& script) {
    server_ = kf::testing::MockServerProcess::start(script, dir_.string());
    ASSERT_TRUE(server_);
    port_ = server_->port();
  }
  void stop_server() {
    if (server_) server_->stop();
  }

  // A configuration pointing at the server. Prices: $1 per 1,000 input tokens.
  std::string write_config(const std::string& name, int turns, bool stop_first, int samples = 1, int max_attempts = 2,
                           int max_concurrent = 1) {
    json c = {
        {"name", name},
        {"provider", "openai-chat"},
        {"base_url", "http://127.0.0.1:" + std::to_string(port_) + "/v1"},
        {"api_key_env", ""},
        {"model", "test-model"},
        {"generation", {{"max_output_tokens", 2048}, {"stream", true}}},
        {"timeouts", {{"connect_s", 2}, {"idle_s", 10}, {"total_s", 30}}},
        {"retry",
         {{"max_attempts", max_attempts},
          {"initial_backoff_s", 0.01},
          {"max_backoff_s", 0.05},
          {"multiplier", 2.0},
          {"jitter", 0.0}}},
        {"rate_limits", {{"requests_per_minute", 0}, {"tokens_per_minute", 0}, {"max_concurrent", max_concurrent}}},
        {"prices", {{"input", 1000.0}, {"cached_input", 1000.0}, {"output", 0.0}, {"reasoning", 0.0}}},
        {"loop",
         {{"turns", turns}, {"samples", samples}, {"stop_at_first_correct", stop_first}, {"keep_last_attempts", 0}}}};
    auto path = dir_ / (name + ".json");
    std::ofstream(path) << c.dump(2);
    return path.string();
  }

  std::string env_prefix() const {
    return "KFORGE_PYTHON='" + python_ + "' XDG_CACHE_HOME='" + (dir_ / "cache").string() + "' ";
  }
  std::string run_command(const std::string& args) const {
    return env_prefix() + kKforge + " run " + args + " --backend host --timing-budget-ms 1 --no-progress --out '" +
           (dir_ / "run").string() + "'";
  }
  int run(const std::string& args, const std::string& log_name = "run.log") {
    return kf::testing::run_shell(run_command(args) + " >'" + (dir_ / log_name).string() + "' 2>&1").exit_code;
  }
  std::vector<json> records() { return read_jsonl(dir_ / "run" / "evaluations.jsonl"); }
  // Every corpus file of the run folder (shards included).
  std::vector<json> all_records() {
    std::vector<json> out;
    for (const auto& e : fs::directory_iterator(dir_ / "run")) {
      const std::string n = e.path().filename().string();
      if (n.rfind("evaluations", 0) != 0 || e.path().extension() != ".jsonl") continue;
      for (auto& r : read_jsonl(e.path())) out.push_back(std::move(r));
    }
    return out;
  }
  json kforge_json(const std::string& args) {
    const std::string file = (dir_ / "out.json").string();
    const int rc = kf::testing::run_shell(env_prefix() + kKforge + " " + args + " >'" + file + "' 2>'" +
                                          (dir_ / "out.err").string() + "'")
                       .exit_code;
    EXPECT_GE(rc, 0) << args;
    auto j = json::parse(read_text(file), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << args << ": " << read_text(dir_ / "out.err");
    return j;
  }
  std::vector<json> requests() { return read_jsonl(dir_ / "requests.jsonl"); }
  // `command_line` through /bin/sh beside the test (it redirects its own output).
  std::unique_ptr<kf::BackgroundChild> shell_in_background(const std::string& command_line) {
    auto child = kf::BackgroundChild::start(kf::ChildCommand{{"/bin/sh", "-c", command_line}, {}, false, "", 0},
                                            "/dev/null", "/dev/null");
    EXPECT_TRUE(child.ok()) << child.error().message;
    return child.ok() ? std::move(*child) : nullptr;
  }
  std::string log(const std::string& name = "run.log") { return read_text(dir_ / name); }

  static std::vector<json> of_kind(const std::vector<json>& rs, const std::string& kind) {
    std::vector<json> out;
    for (const auto& r : rs)
      if (r["kind"] == kind) out.push_back(r);
    return out;
  }

  std::string python_;
  fs::path dir_;
  std::unique_ptr<kf::testing::MockServerProcess> server_;
  int port_ = 0;
};

TEST_F(Campaign, ScriptedConversationRecordsEveryTurnAndFeedsBackEachOutcome) {
  json u = {{"input", 1000}, {"output", 100}, {"reasoning", 10}};
  start_server(json::array({
      {{"answer", "I would write a loop over all elements."}, {"usage", u}},
      {{"answer", kernel_block("  for (int64_t i = 0; i < n; ++i) y[i] = undeclared_thing(x[i]);")}, {"usage", u}},
      // Wrong by 0.1%: fails the tolerance yet stays far from every trivial output, so it is "incorrect".
      {{"answer", kernel_block("  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? 1.001f * x[i] : 0.0f;")},
       {"usage", u}},
      {{"answer", kRelu}, {"reasoning", "```cpp\nint kf_forward() { return 7; }\n```"}, {"usage", u}},
      {{"answer", kRelu}, {"usage", u}},
  }));
  auto config = write_config("scripted", 5, /*stop_first=*/false);
  ASSERT_EQ(run("--config " + config + " --problems " + kDemo + "/1_demo_relu.py"), 0) << log();

  auto rs = records();
  auto evals = of_kind(rs, "evaluation");
  ASSERT_EQ(evals.size(), 5u) << log();
  const char* want[] = {"no_code", "compile_error", "incorrect", "correct", "correct"};
  for (int t = 0; t < 5; ++t) {
    EXPECT_EQ(evals[t]["turn"], t + 1);
    EXPECT_EQ(evals[t]["verdict"]["verdict"], want[t]) << evals[t]["verdict"].dump();
    EXPECT_EQ(evals[t]["config"], "scripted");
    EXPECT_EQ(evals[t]["problem"]["name"], "1_demo_relu");
    EXPECT_EQ(evals[t]["problem"]["category"], "activation");
    EXPECT_EQ(evals[t]["usage"]["input_tokens"], 1000);
    EXPECT_DOUBLE_EQ(evals[t]["cost_usd"].get<double>(), 1.0);
    EXPECT_EQ(evals[t]["environment"]["backend"], "host");
  }
  EXPECT_EQ(evals[0]["source"], nullptr);
  EXPECT_TRUE(fs::exists(dir_ / "run" / evals[3]["source"]["path"].get<std::string>()));
  auto done = of_kind(rs, "unit_done");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["reason"], "turns_exhausted");

  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 5u);
  const std::string first = reqs[0]["last_user_message"];
  EXPECT_NE(first.find("torch.relu(x)"), std::string::npos);  // problem source
  EXPECT_NE(first.find("KF_FLOAT32"), std::string::npos);     // kforge.h verbatim
  EXPECT_NE(first.find("kf_forward"), std::string::npos);
  EXPECT_NE(first.find("128"), std::string::npos);  // the signature's shapes
  EXPECT_NE(reqs[1]["last_user_message"].get<std::string>().find("no fenced code block"), std::string::npos);
  EXPECT_NE(reqs[2]["last_user_message"].get<std::string>().find("did not compile"), std::string::npos);
  EXPECT_NE(reqs[2]["last_user_message"].get<std::string>().find("undeclared_thing"), std::string::npos);
  EXPECT_NE(reqs[3]["last_user_message"].get<std::string>().find("output is incorrect"), std::string::npos);
  EXPECT_NE(reqs[4]["last_user_message"].get<std::string>().find("Speedup:"), std::string::npos);
  // The whole conversation travels: system, first turn, then 3 (answer, feedback) pairs.
  EXPECT_EQ(reqs[3]["messages"].size(), 8u);
  // Reasoning text is never sent back.
  EXPECT_EQ(reqs[4]["messages"].dump().find("return 7;"), std::string::npos);

  // The report agrees: one unit, correct, 5 evaluations, 3 kernel failures, $5 spent.
  std::string report_json = (dir_ / "report.json").string();
  ASSERT_EQ(kf::testing::run_shell(kKforge + " report " + (dir_ / "run").string() + " --format json >" + report_json)
                .exit_code,
            0);
  auto rep = json::parse(read_text(report_json))["configurations"][0];
  EXPECT_EQ(rep["correct"]["count"], 1);
  EXPECT_EQ(rep["evaluations"], 5);
  EXPECT_EQ(rep["kernel_failures"]["total"], 3);
  EXPECT_DOUBLE_EQ(rep["cost_usd"].get<double>(), 5.0);
}

TEST_F(Campaign, YardsticksReachCorpusFeedbackReportsAndThePeakStopRuleEndsEarly) {
  // Both baselines (the compile one costs an inductor build of ReLU, cached under the test's XDG_CACHE_HOME)
  // and a peak target every correct kernel reaches: the unit ends after its first correct kernel although
  // stop_at_first_correct is off and four turns are allowed.
  json u = {{"input", 1000}, {"output", 100}, {"reasoning", 10}};
  start_server(json::array({{{"answer", kRelu}, {"usage", u}},
                            {{"answer", kRelu}, {"usage", u}},
                            {{"answer", kRelu}, {"usage", u}},
                            {{"answer", kRelu}, {"usage", u}}}));
  auto config = write_config("yardsticks", 4, /*stop_first=*/false);
  json c = json::parse(read_text(config));
  c["loop"]["stop_at_peak_fraction"] = 1e-9;
  std::ofstream(config) << c.dump(2);
  ASSERT_EQ(run("--config " + config + " --problems " + kDemo + "/1_demo_relu.py --compile-baseline on"), 0) << log();

  auto rs = records();
  auto evals = of_kind(rs, "evaluation");
  ASSERT_EQ(evals.size(), 1u) << log();
  auto done = of_kind(rs, "unit_done");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["reason"], "peak_fraction_reached");
  EXPECT_EQ(requests().size(), 1u);

  // The corpus record's verdict: both baselines timed, the roofline with measured host roofs, fractions.
  const json& v = evals[0]["verdict"];
  ASSERT_EQ(v["verdict"], "correct") << v.dump();
  EXPECT_EQ(v["baseline"], "eager");
  ASSERT_TRUE(v["baselines"]["eager"]["time_ms"].is_number()) << v["baselines"].dump();
  ASSERT_TRUE(v["baselines"]["compile"]["time_ms"].is_number()) << v["baselines"].dump();
  EXPECT_TRUE(v["baselines"]["compile"]["speedup"].is_number());
  EXPECT_EQ(v["roofline"]["device"]["source"], "measured");
  EXPECT_GT(v["roofline"]["work"]["bytes"].get<double>(), 0);
  EXPECT_TRUE(v["peak"]["fraction"].is_number());
  EXPECT_EQ(v["peak"]["bound_by"], "memory");
  EXPECT_TRUE(v["baselines"]["eager"]["peak"]["fraction"].is_number());
  EXPECT_TRUE(v["baselines"]["compile"]["peak"]["fraction"].is_number());
  // The feedback the model would get next names both baselines and the fractions of peak.
  const std::string fb = evals[0]["feedback"];
  EXPECT_NE(fb.find("x over eager PyTorch"), std::string::npos) << fb;
  EXPECT_NE(fb.find("x over torch.compile"), std::string::npos) << fb;
  EXPECT_NE(fb.find("of the memory bound ("), std::string::npos) << fb;
  EXPECT_NE(fb.find("achieved); eager PyTorch reaches"), std::string::npos) << fb;
  EXPECT_NE(fb.find("torch.compile reaches"), std::string::npos) << fb;

  // Text, json, html reports and compare show both baselines and the fraction of peak.
  const std::string md_file = (dir_ / "report.md").string();
  ASSERT_EQ(kf::testing::run_shell(kKforge + " report " + (dir_ / "run").string() + " >" + md_file).exit_code, 0);
  const std::string md = read_text(md_file);
  for (const char* row : {"| median speedup over eager |", "| median speedup over torch.compile |",
                          "| fraction of peak: kernels, median [p25-p75] |", "| fraction of peak: eager |",
                          "| fraction of peak: torch.compile |"}) {
    const auto at = md.find(row);
    ASSERT_NE(at, std::string::npos) << row << "\n" << md;
    const std::string line = md.substr(at, md.find('\n', at) - at);
    EXPECT_EQ(line.find("| - |"), std::string::npos) << line;  // a figure, not a dash
  }
  auto rep = kforge_json("report " + (dir_ / "run").string() + " --format json")["configurations"][0];
  EXPECT_TRUE(rep["median_speedup_over"]["compile"].is_number()) << rep.dump();
  EXPECT_EQ(rep["peak_fraction"]["n"], 1);
  EXPECT_TRUE(rep["baseline_peak_fraction"]["compile"]["median"].is_number());
  const std::string html_file = (dir_ / "report.html").string();
  ASSERT_EQ(
      kf::testing::run_shell(kKforge + " report " + (dir_ / "run").string() + " --format html >" + html_file).exit_code,
      0);
  const std::string html = read_text(html_file);
  EXPECT_NE(html.find("Fraction of peak per problem"), std::string::npos);
  EXPECT_NE(html.find("data-series=\"torch.compile\""), std::string::npos);
  EXPECT_NE(html.find("fraction of peak: torch.compile"), std::string::npos);
  const std::string cmp_file = (dir_ / "compare.md").string();
  ASSERT_EQ(kf::testing::run_shell(kKforge + " compare " + (dir_ / "run").string() + " " + (dir_ / "run").string() +
                                   " >" + cmp_file)
                .exit_code,
            0);
  EXPECT_NE(read_text(cmp_file).find("| fraction of peak: kernels, median [p25-p75] |"), std::string::npos);
}

json demo_script(double delay_s) {
  json script = json::parse(read_text(kDemo + "/mock-host.json"));
  for (auto& e : script["entries"]) {
    e["usage"] = {{"input", 1000}, {"output", 50}, {"reasoning", 0}};
    if (delay_s > 0) e["delay_s"] = delay_s;
  }
  return script;
}

std::set<std::tuple<std::string, std::string, int, int>> keys_of(const std::vector<json>& evals) {
  std::set<std::tuple<std::string, std::string, int, int>> keys;
  for (const auto& r : evals) keys.emplace(r["config"], r["problem"]["name"], r["sample"], r["turn"]);
  return keys;
}

TEST_F(Campaign, KillMinusNineThenRerunLosesAndDuplicatesNothing) {
  start_server(demo_script(0.3));
  auto config = write_config("resumable", 1, true, /*samples=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo;
  auto first = shell_in_background("exec env " + run_command(args) + " >'" + (dir_ / "first.log").string() + "' 2>&1");
  // Kill once at least two evaluations are on disk (6 units in all); no deadline of its own, as a slow machine
  // only takes longer (ctest's timeout is the limit).
  while (first->running() &&
         !(fs::exists(dir_ / "run" / "evaluations.jsonl") && of_kind(records(), "evaluation").size() >= 2))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  first->stop(SIGKILL);
  size_t before = of_kind(records(), "evaluation").size();
  ASSERT_GE(before, 2u) << log("first.log");
  ASSERT_LT(before, 6u) << "the campaign finished before it could be killed; slow the script down";

  ASSERT_EQ(run(args, "second.log"), 0) << log("second.log");
  auto evals = of_kind(records(), "evaluation");
  EXPECT_EQ(evals.size(), 6u) << log("second.log");
  EXPECT_EQ(keys_of(evals).size(), evals.size()) << "an evaluation was recorded twice";
  for (const auto& r : evals) EXPECT_EQ(r["verdict"]["verdict"], "correct") << r.dump();
  EXPECT_EQ(of_kind(records(), "unit_done").size(), 6u);
  // The second invocation is session 2 of the same run.
  auto manifest = json::parse(read_text(dir_ / "run" / "run.json"));
  EXPECT_EQ(manifest["sessions"], 2);
  EXPECT_EQ(evals.front()["run_id"], evals.back()["run_id"]);

  // A third run has nothing left to do and makes no model call.
  size_t calls = requests().size();
  ASSERT_EQ(run(args, "third.log"), 0) << log("third.log");
  EXPECT_EQ(requests().size(), calls);
  EXPECT_EQ(of_kind(records(), "evaluation").size(), 6u);

  // A changed problem file is detected and refused.
  fs::create_directories(dir_ / "problems");
  for (const auto& e : fs::directory_iterator(kDemo))
    if (e.path().extension() == ".py") fs::copy_file(e.path(), dir_ / "problems" / e.path().filename());
  std::ofstream(dir_ / "problems" / "1_demo_relu.py", std::ios::app) << "\n# edited\n";
  EXPECT_EQ(run("--config " + config + " --problems " + (dir_ / "problems").string(), "changed.log"), 2);
  EXPECT_NE(log("changed.log").find("problem '1_demo_relu' changed"), std::string::npos) << log("changed.log");
}

TEST_F(Campaign, BudgetCapStopsNewModelCalls) {
  start_server(demo_script(0));
  auto config = write_config("budgeted", 1, true, /*samples=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo;
  // Each call costs $1 (1,000 input tokens at $1,000 per million). With $1.5 the cap is reached after
  // two calls; a call that had already passed the check may still finish (2 workers): at most 3.
  ASSERT_EQ(run(args + " --budget-usd 1.5"), 0) << log();
  size_t calls = requests().size();
  EXPECT_GE(calls, 2u);
  EXPECT_LE(calls, 3u) << log();
  EXPECT_NE(log().find("USD budget reached"), std::string::npos) << log();
  // Raising the budget finishes the rest, each unit exactly once.
  ASSERT_EQ(run(args + " --budget-usd 100", "more.log"), 0) << log("more.log");
  EXPECT_EQ(requests().size(), 6u);
  auto evals = of_kind(records(), "evaluation");
  EXPECT_EQ(evals.size(), 6u);
  EXPECT_EQ(keys_of(evals).size(), 6u);
}

TEST_F(Campaign, ReverifyWritesItsResultsWhereTheReportFindsThem) {
  start_server(demo_script(0));
  auto config = write_config("rejudged", 1, true);
  ASSERT_EQ(run("--config " + config + " --problems " + kDemo), 0) << log();
  const fs::path run_dir = dir_ / "run";
  // Exit 0 or 1 depending on whether every claim held on this machine's timings: not asserted.
  const int rc = kf::testing::run_shell(env_prefix() + kKforge + " reverify '" + run_dir.string() +
                                        "' --backend host --seed 3 >'" + (dir_ / "reverify.log").string() + "' 2>&1")
                     .exit_code;
  ASSERT_TRUE(rc == 0 || rc == 1) << log("reverify.log");
  ASSERT_TRUE(fs::exists(run_dir / "reverify.json")) << log("reverify.log");
  auto rv = json::parse(read_text(run_dir / "reverify.json"));
  ASSERT_EQ(rv["kernels"].size(), 3u);
  EXPECT_EQ(rv["seed"], 3);
  const std::set<std::string> checks = {"verified", "not_faster", "no_spread", "within_spread", "not_held"};
  for (const auto& k : rv["kernels"]) EXPECT_TRUE(checks.count(k["speedup_check"])) << k.dump();

  std::string report_json = (dir_ / "report.json").string();
  ASSERT_EQ(
      kf::testing::run_shell(kKforge + " report '" + run_dir.string() + "' --format json >" + report_json).exit_code,
      0);
  auto rep = json::parse(read_text(report_json))["configurations"][0];
  EXPECT_EQ(rep["reverify"]["file"], (run_dir / "reverify.json").string());
  // Every faster unit's best kernel was re-judged; a claim that did not hold is never verified.
  EXPECT_EQ(rep["reverify"]["faster_units_rejudged"], rep["faster_than_baseline_unverified"]);
  int verified = 0;
  for (const auto& u : rep["units_detail"]) {
    ASSERT_TRUE(u["reverify_status"].is_string()) << u.dump();
    if (u["speedup_check"] == "verified") {
      ++verified;
      EXPECT_EQ(u["reverify_status"], "holds") << u.dump();
      EXPECT_GT(u["interval"][0].get<double>(), 1.0) << u.dump();
    }
  }
  EXPECT_EQ(rep["verified_speedups"], verified);
}

TEST_F(Campaign, ProviderOutageIsRecordedAsProviderFailuresNotKernelFailures) {
  start_server(json::array({{{"status", 503}, {"times", "unlimited"}}}));
  auto config = write_config("outage", 3, true, 1, /*max_attempts=*/2);
  EXPECT_EQ(
      run("--config " + config + " --problems " + kDemo + "/1_demo_relu.py," + kDemo + "/2_demo_sum_reduction.py"), 1)
      << log();
  auto rs = records();
  EXPECT_TRUE(of_kind(rs, "evaluation").empty());
  auto failures = of_kind(rs, "provider_failure");
  ASSERT_EQ(failures.size(), 2u);
  for (const auto& f : failures) {
    EXPECT_EQ(f["error"]["kind"], "server");
    EXPECT_EQ(f["error"]["http_status"], 503);
    EXPECT_EQ(f["turn"], 1);
  }
  EXPECT_EQ(requests().size(), 4u);  // two attempts per unit
  std::string report_json = (dir_ / "report.json").string();
  ASSERT_EQ(kf::testing::run_shell(kKforge + " report " + (dir_ / "run").string() + " --format json >" + report_json)
                .exit_code,
            0);
  auto rep = json::parse(read_text(report_json))["configurations"][0];
  EXPECT_EQ(rep["provider_failures"]["total"], 2);
  EXPECT_EQ(rep["kernel_failures"]["total"], 0);
  EXPECT_EQ(rep["units_no_reply"], 2);
}

// The real failure shapes reach a campaign end to end: OpenAI's billing-worded per-day rate limit is
// retried after the wait its message names and the unit goes on; an exhausted account is a recorded
// `quota` provider failure with its cause and advice; an unreported reasoning split is flagged estimated.
TEST_F(Campaign, RealRateLimitAndQuotaShapesInACampaign) {
  const std::string rpd =
      "Rate limit reached for gpt-4-turbo-preview in organization org-itest on requests per day (RPD): Limit 200, "
      "Used 200, Requested 1. Please try again in 0.3s. Visit https://platform.openai.com/account/rate-limits to "
      "learn more. You can increase your rate limit by adding a payment method to your account at "
      "https://platform.openai.com/account/billing.";
  start_server(json::array(
      {{{"match", "torch\\.relu"},
        {"times", 1},
        {"status", 429},
        {"error_type", "requests"},
        {"error_code", "rate_limit_exceeded"},
        {"error_message", rpd}},
       {{"match", "torch\\.relu"},
        {"times", 1},
        {"answer", kRelu},
        {"reasoning", "one thread per element"},
        {"report_reasoning_tokens", false},
        {"usage", {{"input", 1000}, {"output", 30}, {"reasoning", 10}}}},
       {{"match", "torch\\.sum"},
        {"status", 429},
        {"error_type", "insufficient_quota"},
        {"error_message", "You exceeded your current quota, please check your plan and billing details."}}}));
  auto config = write_config("shapes", 1, true, 1, /*max_attempts=*/3);
  EXPECT_EQ(
      run("--config " + config + " --problems " + kDemo + "/1_demo_relu.py," + kDemo + "/2_demo_sum_reduction.py"), 1)
      << log();
  auto rs = records();
  auto evals = of_kind(rs, "evaluation");
  ASSERT_EQ(evals.size(), 1u) << log();
  EXPECT_EQ(evals[0]["problem"]["name"], "1_demo_relu");
  EXPECT_EQ(evals[0]["verdict"]["verdict"], "correct");
  EXPECT_EQ(evals[0]["reply"]["attempts"], 2);
  EXPECT_EQ(evals[0]["usage"]["reasoning_tokens_source"], "estimated");
  EXPECT_EQ(evals[0]["usage"]["output_tokens"].get<int64_t>() + evals[0]["usage"]["reasoning_tokens"].get<int64_t>(),
            40);
  auto failures = of_kind(rs, "provider_failure");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0]["problem"]["name"], "2_demo_sum_reduction");
  EXPECT_EQ(failures[0]["error"]["kind"], "quota");
  EXPECT_EQ(failures[0]["error"]["cause"], "out_of_credit");
  EXPECT_EQ(failures[0]["error"]["attempts"], 1);
  EXPECT_FALSE(failures[0]["error"]["advice"].get<std::string>().empty());
  // Requests: relu 429, relu retried after the message's 0.3 s, sum once (no retry of an exhausted account).
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);
  int64_t relu_first = -1, relu_second = -1;
  for (const auto& r : reqs) {
    if (r["last_user_message"].get<std::string>().find("torch.relu") == std::string::npos) continue;
    (relu_first < 0 ? relu_first : relu_second) = r["t_ms"].get<int64_t>();
  }
  ASSERT_GE(relu_second, 0);
  EXPECT_GE(relu_second - relu_first, 300) << "the wait named by the message, not the 10 ms backoff";
}

TEST_F(Campaign, TwoHostEvaluatorsJudgeEveryUnitOnce) {
  start_server(demo_script(0));
  // 3 problems x 3 samples; 2 concurrent model calls (4 workers) keep both evaluators fed.
  auto config = write_config("pooled", 1, true, /*samples=*/3, 2, /*max_concurrent=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo + " --evaluators 2";
  ASSERT_EQ(run(args), 0) << log();
  auto rs = records();
  auto evals = of_kind(rs, "evaluation");
  ASSERT_EQ(evals.size(), 9u) << log();
  EXPECT_EQ(keys_of(evals).size(), 9u) << "an evaluation was recorded twice";
  EXPECT_EQ(of_kind(rs, "unit_done").size(), 9u);
  for (const auto& r : evals) {
    EXPECT_EQ(r["verdict"]["verdict"], "correct") << r.dump();
    ASSERT_TRUE(r.contains("evaluator")) << r.dump();
    EXPECT_TRUE(r["evaluator"]["slot"] == 0 || r["evaluator"]["slot"] == 1) << r.dump();
    EXPECT_TRUE(r["evaluator"]["gpu_index"].is_null());  // host
  }
  auto manifest = json::parse(read_text(dir_ / "run" / "run.json"));
  EXPECT_EQ(manifest["environment_last"]["evaluators"].size(), 2u);
  EXPECT_NE(log().find("evaluator 1 (host) busy"), std::string::npos) << log();

  // reverify spreads the kernels over 2 evaluators too and keeps the corpus order.
  auto rv = (dir_ / "reverify.json").string();
  const int rc = kf::testing::run_shell(env_prefix() + kKforge + " reverify " + (dir_ / "run").string() +
                                        " --evaluators 2 --seed 7 --out " + rv + " >/dev/null 2>'" +
                                        (dir_ / "rv.log").string() + "'")
                     .exit_code;
  ASSERT_TRUE(rc == 0 || rc == 1) << read_text(dir_ / "rv.log");
  auto doc = json::parse(read_text(rv));
  ASSERT_EQ(doc["kernels"].size(), 9u);
  EXPECT_EQ(doc["evaluators"].size(), 2u);
  for (const auto& k : doc["kernels"]) {
    EXPECT_NE(k["status"], "now_incorrect") << k.dump();
    EXPECT_TRUE(k.contains("evaluator")) << k.dump();
  }
}

TEST_F(Campaign, ShardsFillOneFolderAndEveryReaderSeesTheUnion) {
  start_server(demo_script(0.05));
  auto config = write_config("sharded", 1, true, /*samples=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo;
  // Both shards at once, as two array tasks would.
  auto shard1 = shell_in_background("exec env " + run_command(args + " --shard 1/2") + " >'" +
                                    (dir_ / "shard1.log").string() + "' 2>&1");
  EXPECT_EQ(run(args + " --shard 0/2", "shard0.log"), 0) << log("shard0.log");
  ASSERT_EQ(shard1->wait(), 0) << log("shard1.log");

  EXPECT_FALSE(fs::exists(dir_ / "run" / "evaluations.jsonl"));
  EXPECT_TRUE(fs::exists(dir_ / "run" / "evaluations.shard-0-of-2.jsonl"));
  EXPECT_TRUE(fs::exists(dir_ / "run" / "evaluations.shard-1-of-2.jsonl"));
  auto rs = all_records();
  auto evals = of_kind(rs, "evaluation");
  EXPECT_EQ(evals.size(), 6u);
  EXPECT_EQ(keys_of(evals).size(), 6u) << "a unit ran in both shards";
  EXPECT_EQ(of_kind(rs, "unit_done").size(), 6u);
  auto manifest = json::parse(read_text(dir_ / "run" / "run.json"));
  EXPECT_EQ(manifest["sessions"], 2);
  EXPECT_EQ(evals.front()["run_id"], evals.back()["run_id"]);

  // report, status and resume see the union.
  auto rep = kforge_json("report " + (dir_ / "run").string() + " --format json")["configurations"][0];
  EXPECT_EQ(rep["evaluations"], 6);
  EXPECT_EQ(rep["correct"]["count"], 6);
  auto st = kforge_json("status " + (dir_ / "run").string() + " --json");
  EXPECT_EQ(st["total"]["units"], 6);
  EXPECT_EQ(st["total"]["units_done"], 6);
  EXPECT_TRUE(st["duplicates"].empty());
  ASSERT_EQ(st["shards"].size(), 2u);
  EXPECT_EQ(st["shards"][0]["units"].get<int>() + st["shards"][1]["units"].get<int>(), 6);
  size_t calls = requests().size();
  ASSERT_EQ(run(args + " --shard 0/2", "again.log"), 0) << log("again.log");
  ASSERT_EQ(run(args, "unsharded.log"), 0) << log("unsharded.log");
  EXPECT_EQ(requests().size(), calls) << "a finished unit was run again";
}

TEST_F(Campaign, BudgetCapHoldsAcrossShards) {
  start_server(demo_script(0));
  auto config = write_config("shared-budget", 1, true, /*samples=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo;
  ASSERT_EQ(run(args + " --shard 1/2", "shard1.log"), 0) << log("shard1.log");
  size_t calls = requests().size();
  ASSERT_GE(calls, 1u);
  // Shard 1 spent $calls already ($1 per call): shard 0 with a cap of $1 must not call the model at all.
  ASSERT_EQ(run(args + " --shard 0/2 --budget-usd 1", "shard0.log"), 0) << log("shard0.log");
  EXPECT_EQ(requests().size(), calls) << log("shard0.log");
  EXPECT_NE(log("shard0.log").find("USD budget reached"), std::string::npos) << log("shard0.log");
}

TEST_F(Campaign, BadShardAndGpuOptionsAreUsageErrors) {
  auto config = write_config("bad", 1, true);
  EXPECT_EQ(run("--config " + config + " --problems " + kDemo + " --shard 2/2", "a.log"), 2);
  EXPECT_NE(log("a.log").find("is not I/N"), std::string::npos) << log("a.log");
  EXPECT_EQ(run("--config " + config + " --problems " + kDemo + " --gpus 0,1", "b.log"), 2);
  EXPECT_NE(log("b.log").find("--evaluators"), std::string::npos) << log("b.log");
}

// One model asked in both formats (the shipped demo pair, differing only in candidate_format) against the
// demo script, which answers each format's first turn with an honest solution: both judged correct by the
// same evaluator, each record naming its format, and the report telling the two configurations apart.
TEST_F(Campaign, KfForwardAndKernelBenchFormatsSideBySide) {
  start_server(demo_script(0));
  const std::string pair = std::string(KFORGE_TEST_SOURCE_DIR) + "/configs/demo-kernelbench/";
  const std::string args = "--config " + pair + "qwen-kf.json --config " + pair + "qwen-kb.json --problems " + kDemo +
                           "/1_demo_relu.py --turns 1";
  const int rc = kf::testing::run_shell("KFORGE_MOCK_URL=http://127.0.0.1:" + std::to_string(port_) + " " +
                                        run_command(args) + " >'" + (dir_ / "run.log").string() + "' 2>&1")
                     .exit_code;
  ASSERT_EQ(rc, 0) << log();

  std::map<std::string, json> eval_of;
  for (const auto& r : of_kind(records(), "evaluation")) eval_of[r["config"]] = r;
  ASSERT_EQ(eval_of.size(), 2u) << log();
  const json& kf = eval_of["demo-qwen-kf"];
  const json& kb = eval_of["demo-qwen-kb"];
  EXPECT_EQ(kf["candidate_format"], "kf_forward");
  EXPECT_EQ(kb["candidate_format"], "kernelbench-cuda");
  EXPECT_EQ(kf["verdict"]["verdict"], "correct") << kf["verdict"].dump();
  EXPECT_EQ(kb["verdict"]["verdict"], "correct") << kb["verdict"].dump();
  EXPECT_EQ(kb["verdict"]["candidate_kind"], "kernelbench");
  EXPECT_EQ(fs::path(kf["source"]["path"].get<std::string>()).extension(), ".cpp");
  EXPECT_EQ(fs::path(kb["source"]["path"].get<std::string>()).extension(), ".py");
  for (const auto& r : of_kind(records(), "unit_done")) EXPECT_TRUE(r.contains("candidate_format")) << r.dump();
  auto manifest = json::parse(read_text(dir_ / "run" / "run.json"));
  EXPECT_EQ(manifest["inputs"]["configs"]["demo-qwen-kb"]["candidate_format"], "kernelbench-cuda");

  // Each configuration was asked in its own format.
  std::map<std::string, std::string> first_turn;
  for (const auto& q : requests()) {
    const std::string text = q["last_user_message"];
    first_turn[text.find("class ModelNew(nn.Module)") != std::string::npos ? "kb" : "kf"] = text;
  }
  ASSERT_EQ(first_turn.size(), 2u);
  EXPECT_NE(first_turn["kf"].find("kf_forward"), std::string::npos);
  EXPECT_NE(first_turn["kb"].find("cpp_sources"), std::string::npos);
  EXPECT_EQ(first_turn["kb"].find("kf_forward"), std::string::npos);

  auto rep = kforge_json("report '" + (dir_ / "run").string() + "' --format json");
  ASSERT_EQ(rep["configurations"].size(), 2u);
  for (const auto& c : rep["configurations"]) {
    EXPECT_EQ(c["candidate_format"], c["config"] == "demo-qwen-kb" ? "kernelbench-cuda" : "kf_forward") << c.dump();
    EXPECT_EQ(c["correct"]["count"], 1) << c.dump();
  }
}

TEST_F(Campaign, TritonFormatOnTheHostBackendIsABadInputNamingTheAlternative) {
  auto config = write_config("triton-on-host", 1, true);
  json c = json::parse(read_text(config));
  c["candidate_format"] = "kernelbench-triton";
  std::ofstream(config) << c.dump(2);
  EXPECT_EQ(run("--config " + config + " --problems " + kDemo), 2) << log();
  EXPECT_NE(log().find("kernelbench-triton needs the cuda backend"), std::string::npos) << log();
  EXPECT_NE(log().find("kernelbench-cuda"), std::string::npos) << log();
}

}  // namespace
