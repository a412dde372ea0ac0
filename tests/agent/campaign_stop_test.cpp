// How `kforge run` ends and grows, end to end: real processes, real signals, the scripted model server and the
// host evaluator (whose timing rounds freeze the runner). Nothing is left behind after kill -9 or SIGTERM at
// any moment; SIGTERM records the replies that arrived; a budget cap holds back calls that only waited for a
// concurrency slot; a run grows by a configuration; a refused run changes nothing; damage is reported and
// repaired once. Label: integration.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
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

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json> read_jsonl(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

std::vector<json> of_kind(const std::vector<json>& rs, const std::string& kind) {
  std::vector<json> out;
  for (const auto& r : rs)
    if (r["kind"] == kind) out.push_back(r);
  return out;
}

using kf::testing::kNoTorchAdvice;
using kf::testing::python_with_torch;

// What a kforge process (by PID) still has on the machine: job groups, processes in them, private folders.
std::vector<std::string> leftovers_of(long pid) {
  std::vector<std::string> out;
  const std::string tag = "job-" + std::to_string(pid) + ".";
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator("/sys/fs/cgroup", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().find(tag) != std::string::npos)
      out.push_back("group " + it->path().string());
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_text(e.path() / "cgroup").find(tag) != std::string::npos) out.push_back("process " + name);
  }
  for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
    const std::string n = e.path().filename();
    for (const std::string prefix : {"kforge-eval-", "kforge-oracle-"})
      if (n.rfind(prefix + std::to_string(pid) + ".", 0) == 0) out.push_back("folder " + e.path().string());
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

class CampaignStop : public ::testing::Test {
 public:  // kill_and_resume_search drives it too
  void SetUp() override {
    python_ = python_with_torch();
    ASSERT_FALSE(python_.empty()) << kNoTorchAdvice;
    dir_ = fs::temp_directory_path() / ("kforge-stop-it-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Demo answers (all correct), each $1 (1,000 input tokens at $1,000 per million), `delay_s` before each.
  void start_server(double delay_s) {
    json script = json::parse(read_text(kDemo + "/mock-host.json"));
    for (auto& e : script["entries"]) {
      e["usage"] = {{"input", 1000}, {"output", 50}, {"reasoning", 0}};
      if (delay_s > 0) e["delay_s"] = delay_s;
    }
    server_ = kf::testing::MockServerProcess::start(script, dir_.string());
    ASSERT_TRUE(server_);
  }
  std::string write_config(const std::string& name, int samples, int max_concurrent = 1,
                           const json& loop = json::object()) {
    json c = {
        {"name", name},
        {"provider", "openai-chat"},
        {"base_url", "http://127.0.0.1:" + std::to_string(server_->port()) + "/v1"},
        {"api_key_env", ""},
        {"model", "test-model"},
        {"generation", {{"max_output_tokens", 2048}, {"stream", true}}},
        {"timeouts", {{"connect_s", 2}, {"idle_s", 30}, {"total_s", 60}}},
        {"retry",
         {{"max_attempts", 1},
          {"initial_backoff_s", 0.01},
          {"max_backoff_s", 0.05},
          {"multiplier", 2.0},
          {"jitter", 0.0}}},
        {"rate_limits", {{"requests_per_minute", 0}, {"tokens_per_minute", 0}, {"max_concurrent", max_concurrent}}},
        {"prices", {{"input", 1000.0}, {"cached_input", 1000.0}, {"output", 0.0}, {"reasoning", 0.0}}},
        {"loop", {{"turns", 1}, {"samples", samples}, {"stop_at_first_correct", true}, {"keep_last_attempts", 0}}}};
    c["loop"].update(loop);
    auto path = dir_ / (name + ".json");
    std::ofstream(path) << c.dump(2);
    return path.string();
  }
  std::string env_prefix() const {
    return "KFORGE_PYTHON='" + python_ + "' XDG_CACHE_HOME='" + (dir_ / "cache").string() + "' ";
  }
  std::string run_dir() const { return (dir_ / "run").string(); }
  std::string run_command(const std::string& args) const {
    return env_prefix() + kKforge + " -v run " + args + " --backend host --timing-budget-ms 1 --no-progress --out '" +
           run_dir() + "'";
  }
  int run(const std::string& args, const std::string& log_name) {
    return kf::testing::run_shell(run_command(args) + " >'" + (dir_ / log_name).string() + "' 2>&1").exit_code;
  }
  int kforge(const std::string& args, const std::string& log_name) {
    return kf::testing::run_shell(env_prefix() + kKforge + " " + args + " >'" + (dir_ / log_name).string() + "' 2>&1")
        .exit_code;
  }
  // Starts `kforge run` in the background; returns its PID (the shell execs into it).
  long start_run(const std::string& args, const std::string& log_name) {
    const fs::path pid_file = dir_ / (log_name + ".pid");
    fs::remove(pid_file);
    auto child = kf::BackgroundChild::start(
        kf::ChildCommand{{"/bin/sh", "-c",
                          "echo $$ > '" + pid_file.string() + "'; exec env " + run_command(args) + " >'" +
                              (dir_ / log_name).string() + "' 2>&1"},
                         {},
                         false,
                         "",
                         0},
        "/dev/null", "/dev/null");
    EXPECT_TRUE(child.ok());
    if (!child.ok()) return 0;
    background_ = std::move(*child);
    for (int i = 0; i < 200 && read_text(pid_file).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return std::atol(read_text(pid_file).c_str());
  }
  std::vector<json> records() { return read_jsonl(dir_ / "run" / "evaluations.jsonl"); }
  std::string log(const std::string& name) { return read_text(dir_ / name); }
  // The guardian's PID, from kforge's debug log (0 when it has not started one yet).
  long guardian_of(const std::string& log_name) {
    const std::string text = log(log_name);
    const std::string key = "guardian process ";
    const auto at = text.find(key);
    return at == std::string::npos ? 0 : std::atol(text.c_str() + at + key.size());
  }
  // Waits until the run has recorded `n` evaluations or ended.
  void wait_for_evaluations(size_t n) {
    for (int i = 0; i < 1200; ++i) {
      if (of_kind(records(), "evaluation").size() >= n || !background_->running()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // Replies saved in the run folder that no record names (their calls were answered before a kill -9).
  std::set<std::string> unrecorded_replies() {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "run" / "replies", ec))
      out.insert("replies/" + e.path().filename().string());
    for (const auto& r : records())
      if (r.contains("reply") && r["reply"].is_object()) out.erase(r["reply"]["path"].get<std::string>());
    return out;
  }

  std::string python_;
  size_t requests_lost_ = 0;  // calls answered by the server whose replies never reached a killed kforge
  fs::path dir_;
  std::unique_ptr<kf::testing::MockServerProcess> server_;
  std::unique_ptr<kf::BackgroundChild> background_;
};

TEST_F(CampaignStop, KillAndSigtermAtRandomMomentsLeaveNothingBehind) {
  start_server(0.2);
  auto config = write_config("stopped", /*samples=*/3);
  const std::string args = "--config " + config + " --problems " + kDemo;
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> moment_ms(300, 4000);
  SCOPED_TRACE("seed " + std::to_string(seed));
  // kill -9 of kforge alone (its guardian takes the jobs back), SIGTERM, and kill -9 of kforge together with
  // its guardian (a scheduler killing the whole job: the next kforge command takes them back).
  for (const std::string how : {"kill", "term", "kill-all", "kill", "term", "kill-all"}) {
    SCOPED_TRACE(how);
    const std::string log_name = "run-" + how + ".log";
    const long pid = start_run(args, log_name);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(moment_ms(rng)));
    if (how == "term") {
      const int rc = background_->stop(SIGTERM);
      EXPECT_TRUE(rc == 143 || rc == 0) << rc << "\n" << log(log_name);
      if (rc == 143) {
        EXPECT_NE(log(log_name).find("SIGTERM"), std::string::npos) << log(log_name);
      }
      // kforge takes everything back itself, or (after an abort at the deadline) its guardian does.
      std::vector<std::string> left;
      for (int i = 0; i < 400; ++i) {
        left = leftovers_of(pid);
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      EXPECT_EQ(joined(left), "") << log(log_name);
    } else if (how == "kill") {
      background_->stop(SIGKILL);
      std::vector<std::string> left;
      for (int i = 0; i < 400; ++i) {  // the guardian's work, bounded
        left = leftovers_of(pid);
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      EXPECT_EQ(joined(left), "") << "the guardian did not take back what kill -9 left\n" << log(log_name);
    } else {
      const long guardian = guardian_of(log_name);
      if (guardian > 0) ::kill(static_cast<pid_t>(guardian), SIGKILL);
      background_->stop(SIGKILL);
      // The next kforge command, whatever it is, first takes back what the dead process left.
      kforge("status '" + run_dir() + "'", "status-" + how + ".log");
      EXPECT_EQ(joined(leftovers_of(pid)), "") << "the next command did not sweep\n" << log(log_name);
    }
  }
  // Nothing lost or recorded twice: the last run finishes the campaign.
  ASSERT_EQ(run(args, "final.log"), 0) << log("final.log");
  auto evals = of_kind(records(), "evaluation");
  std::set<std::string> keys;
  for (const auto& r : evals) keys.insert(r["problem"]["name"].get<std::string>() + "/" + r["sample"].dump());
  EXPECT_EQ(evals.size(), 9u);
  EXPECT_EQ(keys.size(), evals.size()) << "an evaluation was recorded twice";
}

// A search (beam, evolve) killed with kill -9 and stopped with SIGTERM at random moments (seeded) and rerun: every
// planned turn is evaluated exactly once, a reply that was saved is never asked for again, a SIGTERM records every
// reply that arrived, and the last run replays the recorded rounds exactly (a turn recorded with another lineage
// than the search plans again fails the run: loop.cpp, check_recorded), so the final population is the one the
// seeded search plans from what was judged.
void kill_and_resume_search(CampaignStop& t, const std::string& name, const json& loop, size_t per_problem);

TEST_F(CampaignStop, AKilledBeamSearchResumesWithNoEvaluationLostOrRepeated) {
  kill_and_resume_search(
      *this, "beam", {{"strategy", "beam"}, {"rounds", 3}, {"stop_at_first_correct", false}, {"beam", {{"width", 2}}}},
      6);
}

TEST_F(CampaignStop, AKilledEvolveSearchResumesWithNoEvaluationLostOrRepeated) {
  kill_and_resume_search(*this, "evolve",
                         {{"strategy", "evolve"},
                          {"rounds", 3},
                          {"seed", 5},
                          {"stop_at_first_correct", false},
                          {"evolve", {{"islands", 2}, {"children", 1}, {"migrate_every", 2}}}},
                         6);
}

TEST_F(CampaignStop, SigtermRecordsEveryReplyThatArrivedAndExits143) {
  start_server(1.0);
  auto config = write_config("terminated", /*samples=*/3, /*max_concurrent=*/2);
  // A deadline no loaded test machine reaches (the deadline itself: ASecondSigtermOrTheDeadlineAborts).
  const std::string args = "--config " + config + " --problems " + kDemo + " --sigterm-deadline 600";
  const long pid = start_run(args, "first.log");
  ASSERT_GT(pid, 0);
  wait_for_evaluations(1);
  ASSERT_TRUE(background_->running()) << "the campaign ended before SIGTERM; slow the script down";
  EXPECT_EQ(background_->stop(SIGTERM), 143) << log("first.log");
  EXPECT_NE(log("first.log").find("SIGTERM: no new model calls"), std::string::npos) << log("first.log");
  EXPECT_NE(log("first.log").find("stopped by SIGTERM"), std::string::npos) << log("first.log");
  // Every call that was sent was answered and recorded; none was sent after the signal came.
  const size_t sent = server_->requests().size();
  const auto evals = of_kind(records(), "evaluation");
  EXPECT_EQ(evals.size(), sent) << log("first.log");
  EXPECT_LT(sent, 9u);
  EXPECT_EQ(joined(leftovers_of(pid)), "");
  // Resuming asks for nothing twice.
  ASSERT_EQ(run(args, "second.log"), 0) << log("second.log");
  EXPECT_EQ(server_->requests().size(), 9u);
  EXPECT_EQ(of_kind(records(), "evaluation").size(), 9u);
}

TEST_F(CampaignStop, ASecondSigtermOrTheDeadlineAborts) {
  start_server(3.0);
  auto config = write_config("aborted", /*samples=*/3, /*max_concurrent=*/2);
  const std::string args = "--config " + config + " --problems " + kDemo + " --sigterm-deadline 0.5";
  const long pid = start_run(args, "deadline.log");
  ASSERT_GT(pid, 0);
  // Calls are on the wire for 3 s; SIGTERM gives them 0.5 s: kforge aborts at the deadline.
  for (int i = 0; i < 400 && server_->requests().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  EXPECT_EQ(background_->stop(SIGTERM), 143);
  EXPECT_NE(log("deadline.log").find("deadline reached"), std::string::npos) << log("deadline.log");
  for (int i = 0; i < 400 && !leftovers_of(pid).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(joined(leftovers_of(pid)), "");
}

TEST_F(CampaignStop, BudgetCapWithQueuedCallsIsExceededOnlyByCallsOnTheWire) {
  start_server(0.5);
  // One call at a time, two workers: the second worker's call always waits for the slot. Each call costs $1;
  // with $1.5 the cap is reached when the second reply arrives, and the calls waiting for the slot then are
  // never sent: exactly 2 calls (the one on the wire when $1 was spent is the only overrun).
  auto config = write_config("capped", /*samples=*/3, /*max_concurrent=*/1);
  ASSERT_EQ(run("--config " + config + " --problems " + kDemo + " --budget-usd 1.5", "budget.log"), 0)
      << log("budget.log");
  EXPECT_EQ(server_->requests().size(), 2u) << log("budget.log");
  EXPECT_NE(log("budget.log").find("USD budget reached"), std::string::npos);
  // started_at is when each call was sent; the wait for the slot is its own field.
  auto evals = of_kind(records(), "evaluation");
  ASSERT_EQ(evals.size(), 2u);
  bool waited = false;
  for (const auto& r : evals) {
    ASSERT_TRUE(r.contains("queue_wait_s")) << r.dump();
    waited = waited || r["queue_wait_s"].get<double>() > 0.1;
  }
  EXPECT_TRUE(waited) << "the second call waited for the first one's slot";
  // The slot is free only once the other call's reply is in: the later call was sent after the earlier one.
  EXPECT_NE(evals[0]["started_at"], evals[1]["started_at"]);
}

TEST_F(CampaignStop, BudgetsHoldForRoundsThatAskSeveralCallsAtOnce) {
  start_server(0.5);
  // A beam asks three calls per round; one slot, so two wait. With $1.5 the cap is reached when the second
  // reply arrives: the calls still waiting are never sent, whichever unit's round they belong to.
  auto capped =
      write_config("beam-capped", /*samples=*/1, /*max_concurrent=*/1,
                   {{"strategy", "beam"}, {"rounds", 3}, {"stop_at_first_correct", false}, {"beam", {{"width", 3}}}});
  ASSERT_EQ(run("--config " + capped + " --problems " + kDemo + " --budget-usd 1.5", "beam-budget.log"), 0)
      << log("beam-budget.log");
  EXPECT_EQ(server_->requests().size(), 2u) << log("beam-budget.log");
  EXPECT_EQ(of_kind(records(), "evaluation").size(), 2u);
}

TEST_F(CampaignStop, APerProblemEvaluationBudgetIsNeverExceededByARound) {
  start_server(0);
  // Width 3 and 4 evaluations per problem: round 1 asks 3, round 2 only the 1 left, never 3.
  auto config = write_config("beam-evals", /*samples=*/1, /*max_concurrent=*/3,
                             {{"strategy", "beam"},
                              {"rounds", 5},
                              {"stop_at_first_correct", false},
                              {"beam", {{"width", 3}}},
                              {"budget", {{"evaluations", 4}}}});
  ASSERT_EQ(run("--config " + config + " --problems " + kDemo, "beam-evals.log"), 0) << log("beam-evals.log");
  EXPECT_EQ(server_->requests().size(), 12u);
  const auto rs = records();
  std::map<std::string, int> per_problem;
  for (const auto& r : of_kind(rs, "evaluation")) ++per_problem[r["problem"]["name"].get<std::string>()];
  ASSERT_EQ(per_problem.size(), 3u);
  for (const auto& [problem, n] : per_problem) EXPECT_EQ(n, 4) << problem;
  for (const auto& d : of_kind(rs, "unit_done")) EXPECT_EQ(d["reason"], "budget_evaluations");
}

TEST_F(CampaignStop, ARunGrowsByAConfigurationAndARefusedRunChangesNothing) {
  start_server(0);
  auto a = write_config("first", /*samples=*/1);
  ASSERT_EQ(run("--config " + a + " --problems " + kDemo, "a.log"), 0) << log("a.log");
  ASSERT_EQ(server_->requests().size(), 3u);
  // Adding a configuration resumes the existing one and adds the new one's units.
  auto b = write_config("second", /*samples=*/1);
  ASSERT_EQ(run("--config " + a + " --config " + b + " --problems " + kDemo, "ab.log"), 0) << log("ab.log");
  EXPECT_EQ(server_->requests().size(), 6u) << log("ab.log");
  auto manifest = json::parse(read_text(dir_ / "run" / "run.json"));
  EXPECT_EQ(manifest["sessions"], 2);
  EXPECT_TRUE(manifest["inputs"]["configs"].contains("first"));
  EXPECT_TRUE(manifest["inputs"]["configs"].contains("second"));
  ASSERT_EQ(kforge("status --json '" + run_dir() + "'", "status.json"), 0) << log("status.json");
  auto status = json::parse(log("status.json"));
  EXPECT_EQ(status["total"]["units"], 6);
  EXPECT_EQ(status["total"]["units_done"], 6);

  const std::string run_json = read_text(dir_ / "run" / "run.json");
  const std::string corpus = read_text(dir_ / "run" / "evaluations.jsonl");
  // Refused because the inputs changed: nothing on disk changes (no session counted).
  fs::create_directories(dir_ / "problems");
  for (const auto& e : fs::directory_iterator(kDemo))
    if (e.path().extension() == ".py") fs::copy_file(e.path(), dir_ / "problems" / e.path().filename());
  std::ofstream(dir_ / "problems" / "1_demo_relu.py", std::ios::app) << "\n# edited\n";
  EXPECT_EQ(run("--config " + a + " --problems " + (dir_ / "problems").string(), "changed.log"), 2);
  EXPECT_NE(log("changed.log").find("problem '1_demo_relu' changed"), std::string::npos) << log("changed.log");
  EXPECT_EQ(read_text(dir_ / "run" / "run.json"), run_json);
  // Refused because another run holds the folder: nothing changes either.
  const int fd = ::open((dir_ / "run" / "evaluations.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(run("--config " + a + " --problems " + kDemo, "busy.log"), 2);
  ::close(fd);
  EXPECT_NE(log("busy.log").find("another kforge run"), std::string::npos) << log("busy.log");
  EXPECT_EQ(read_text(dir_ / "run" / "run.json"), run_json);
  EXPECT_EQ(read_text(dir_ / "run" / "evaluations.jsonl"), corpus);
}

TEST_F(CampaignStop, DamageIsReportedByStatusAndATornTailIsRepairedOnce) {
  start_server(0);
  auto config = write_config("damaged", /*samples=*/1);
  const std::string args = "--config " + config + " --problems " + kDemo;
  ASSERT_EQ(run(args, "a.log"), 0) << log("a.log");
  const fs::path file = dir_ / "run" / "evaluations.jsonl";
  // A disk-full append: the corpus ends mid-record.
  std::ofstream(file, std::ios::app) << "{\"schema\": 1, \"kind\": \"evaluation\", \"run_id\": \"x\", \"conf";
  ASSERT_EQ(kforge("status '" + run_dir() + "'", "torn-status.log"), 0) << log("torn-status.log");
  EXPECT_NE(log("torn-status.log").find("torn record"), std::string::npos) << log("torn-status.log");
  // Growing the run (a second configuration) appends: the fragment is cut off first and kept aside with its bytes.
  auto more = write_config("damaged-too", /*samples=*/1);
  ASSERT_EQ(run(args + " --config " + more, "b.log"), 0) << log("b.log");
  EXPECT_NE(log("b.log").find("cut off before appending"), std::string::npos) << log("b.log");
  std::vector<fs::path> kept;
  for (const auto& e : fs::directory_iterator(dir_ / "run" / "torn")) kept.push_back(e.path());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(read_text(kept[0]), "{\"schema\": 1, \"kind\": \"evaluation\", \"run_id\": \"x\", \"conf");
  ASSERT_EQ(kforge("status '" + run_dir() + "'", "repaired-status.log"), 0) << log("repaired-status.log");
  EXPECT_EQ(log("repaired-status.log").find("unreadable"), std::string::npos) << log("repaired-status.log");
  // A complete line that is no record: status counts it, names it and exits 1.
  std::ofstream(file, std::ios::app) << "not a record\n";
  EXPECT_EQ(kforge("status '" + run_dir() + "'", "damaged-status.log"), 1);
  EXPECT_NE(log("damaged-status.log").find("1 unreadable line"), std::string::npos) << log("damaged-status.log");
  EXPECT_NE(log("damaged-status.log").find("evaluations.jsonl line "), std::string::npos) << log("damaged-status.log");
}

}  // namespace

namespace {

void kill_and_resume_search(CampaignStop& t, const std::string& name, const json& loop, size_t per_problem) {
  t.start_server(0.2);
  auto config = t.write_config(name, /*samples=*/1, /*max_concurrent=*/2, loop);
  // A deadline no slow machine reaches: after SIGTERM every reply that arrived is judged (the deadline's abort
  // has its own test).
  const std::string args = "--config " + config + " --problems " + kDemo + " --sigterm-deadline 600";
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> moment_ms(300, 5000);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const std::string how : {"kill", "term", "kill", "term"}) {
    SCOPED_TRACE(how);
    const std::string log_name = "search-" + how + ".log";
    ASSERT_GT(t.start_run(args, log_name), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(moment_ms(rng)));
    const auto unrecorded_before = t.unrecorded_replies();
    if (how == "term") {
      const int rc = t.background_->stop(SIGTERM);
      EXPECT_TRUE(rc == 143 || rc == 0) << rc << "\n" << t.log(log_name);
      // After SIGTERM every reply that arrived has its record: none is left to judge but a killed run's.
      for (const auto& reply : t.unrecorded_replies()) EXPECT_TRUE(unrecorded_before.count(reply)) << reply;
    } else {
      t.background_->stop(SIGKILL);
      // A call on the wire when kforge died never reached it: asked again on rerun, the one repeat allowed.
      std::error_code ec;
      size_t saved = 0;
      for (auto it = fs::directory_iterator(fs::path(t.run_dir()) / "replies", ec);
           !ec && it != fs::directory_iterator(); ++it)
        ++saved;
      t.requests_lost_ = t.server_->requests().size() - saved;
    }
  }
  ASSERT_EQ(t.run(args, "search-final.log"), 0) << t.log("search-final.log");
  const auto rs = t.records();
  std::map<std::string, std::set<int>> turns;
  std::set<std::string> reply_paths;
  size_t evaluations = 0;
  for (const auto& r : of_kind(rs, "evaluation")) {
    ++evaluations;
    const std::string problem = r["problem"]["name"];
    EXPECT_TRUE(turns[problem].insert(r["turn"].get<int>()).second) << "turn recorded twice: " << r.dump();
    EXPECT_TRUE(reply_paths.insert(r["reply"]["path"].get<std::string>()).second) << r.dump();
    EXPECT_EQ(r["lineage"]["strategy"], name);
  }
  EXPECT_EQ(turns.size(), 3u);
  for (const auto& [problem, seen] : turns) {
    EXPECT_EQ(seen.size(), per_problem) << problem;
    EXPECT_EQ(*seen.rbegin(), static_cast<int>(per_problem)) << problem << ": a planned turn is missing";
  }
  const auto done = of_kind(rs, "unit_done");
  ASSERT_EQ(done.size(), 3u);
  for (const auto& d : done) EXPECT_EQ(d["reason"], "rounds_exhausted");
  // Every reply saved was recorded once: the server was asked once per evaluation, plus calls lost on the wire.
  EXPECT_EQ(t.server_->requests().size() - t.requests_lost_, evaluations);
}

}  // namespace
