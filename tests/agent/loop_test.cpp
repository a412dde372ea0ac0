// The refinement loop against a fake provider and a fake judge: turn sequencing, feedback per
// outcome, trimming, stop rules, resume from recorded turns, provider failures and stops.
#include <filesystem>
#include <mutex>

#include <gtest/gtest.h>

#include "agent/campaign/loop.h"
#include "agent/prompt/conversation.h"
#include "agent/prompt/feedback.h"
#include "corpus/reader.h"

namespace kf::agent {
namespace {
namespace fs = std::filesystem;

const std::string kGood =
    "```cuda\n#include \"kforge.h\"\nextern \"C\" int kf_forward(const kf_tensor* i, int32_t n, "
    "kf_tensor* o, int32_t m, void* s) { return 0; }\n```\n";

class FakeProvider : public providers::Provider {
 public:
  explicit FakeProvider(std::vector<std::variant<std::string, providers::ProviderError>> script)
      : script_(std::move(script)) {
    config_.name = "fake";
    config_.model = "fake-model";
    config_.prices.input = 1e6;  // $1 per input token: easy arithmetic
  }
  providers::ProviderResult<providers::Reply> complete(const std::vector<providers::ChatMessage>& messages,
                                                       const providers::CallGate& gate = {}) override {
    if (gate.may_send && !gate.may_send())
      return providers::ProviderError{providers::ProviderErrorKind::not_sent, "not sent", 0, 0, {}};
    if (gate.sent) gate.sent();
    auto result = next(messages);
    if (gate.settled) {
      if (auto* r = std::get_if<providers::Reply>(&result)) gate.settled(r->cost_usd, r->usage.input_tokens);
    }
    return result;
  }
  providers::ProviderResult<providers::Reply> next(const std::vector<providers::ChatMessage>& messages) {
    std::lock_guard lock(mu_);
    received.push_back(messages);
    if (next_ >= script_.size())
      return providers::ProviderError{providers::ProviderErrorKind::server, "script exhausted", 500, 1, {}};
    auto entry = script_[next_++];
    if (auto* e = std::get_if<providers::ProviderError>(&entry)) return *e;
    providers::Reply r;
    r.answer = std::get<std::string>(entry);
    r.reasoning = "```cuda\nint kf_forward() { return 1; }\n```";  // never extracted
    r.usage.input_tokens = 1;
    r.cost_usd = 1.0;
    return r;
  }
  const providers::ModelConfig& config() const override { return config_; }
  std::vector<std::vector<providers::ChatMessage>> received;

 private:
  std::mutex mu_;
  std::vector<std::variant<std::string, providers::ProviderError>> script_;
  size_t next_ = 0;
  providers::ModelConfig config_;
};

// Returns verdicts in order for every judged source.
class FakeJudge : public KernelJudge {
 public:
  explicit FakeJudge(std::vector<nlohmann::json> verdicts) : verdicts_(std::move(verdicts)) {}
  Judgment judge(const ProblemInfo&, const std::string& source_path) override {
    sources.push_back(source_path);
    return {eval::Verdict::from_json(verdicts_.at(next_++)), corpus::EvaluatorRef{1, std::nullopt, "", ""}};
  }
  std::vector<std::string> sources;

 private:
  std::vector<nlohmann::json> verdicts_;
  size_t next_ = 0;
};

nlohmann::json verdict(const std::string& v, double speedup = 0) {
  nlohmann::json j = {{"verdict", v},
                      {"correct", v == "correct"},
                      {"reasons", nlohmann::json::array()},
                      {"checks", nlohmann::json::object()},
                      {"compiler_output", ""}};
  if (v == "compile_error") j["compiler_output"] = "k.cu(3): error: identifier \"foo\" is undefined";
  if (v == "incorrect") j["reasons"].push_back({{"code", "incorrect.rel_l2"}, {"detail", "output0 rel_l2 0.5 at 17"}});
  if (v == "correct") {
    j["time_ms"] = 1.0;
    j["ref_time_ms"] = speedup;
    j["speedup"] = speedup;
  }
  return j;
}

// A correct verdict with both baselines and fractions of peak (the yardsticks of docs/evaluator.md).
nlohmann::json yardstick_verdict(double speedup, double peak, double eager_peak, double compile_peak) {
  auto j = verdict("correct", speedup);
  auto frac = [](double f) {
    return nlohmann::json{{"time_ms", 1.0},       {"memory_ms", f}, {"compute_ms", 0.0},    {"bound_ms", f},
                          {"bound_by", "memory"}, {"fraction", f},  {"achieved_gbps", 1.0}, {"achieved_tflops", 0.0}};
  };
  j["baseline"] = "eager";
  j["baselines"] = {
      {"eager", {{"time_ms", speedup}, {"speedup", speedup}, {"peak", frac(eager_peak)}}},
      {"compile",
       {{"time_ms", speedup / 2}, {"speedup", speedup / 2}, {"peak", frac(compile_peak)}, {"compile_s", 3.0}}}};
  j["peak"] = frac(peak);
  return j;
}

class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kforge_loop_test_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    auto t = PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts");
    ASSERT_TRUE(t.ok());
    prompt = PromptBuilder(*t, CandidateSpec{});
    auto w = corpus::Writer::open(dir.string());
    ASSERT_TRUE(w.ok());
    writer = std::move(*w);
    problem = {"19_ReLU", "/nonexistent/19_ReLU.py", "abc", "activation", "src"};
    run.run_id = "test-run";
  }
  void TearDown() override { fs::remove_all(dir); }

  UnitJob job(providers::Provider& p, KernelJudge& j, int turns, bool stop_first = true) {
    UnitJob u;
    u.key = {"fake", "19_ReLU", 0};
    u.problem = &problem;
    u.provider = &p;
    u.judge = &j;
    u.prompt = &prompt;
    u.corpus = writer.get();
    u.run = &run;
    u.settings.search.rounds = turns;
    u.settings.search.stop.first_correct = stop_first;
    u.system_prompt = "SYSTEM";
    u.first_turn = "FIRST";
    return u;
  }
  std::vector<corpus::Record> records() {
    auto c = corpus::load(dir.string());
    EXPECT_TRUE(c.ok());
    return c.ok() ? c->records : std::vector<corpus::Record>{};
  }

  fs::path dir;
  PromptBuilder prompt;
  std::unique_ptr<corpus::Writer> writer;
  ProblemInfo problem;
  RunContext run;
};

TEST_F(LoopTest, ScriptedConversationFeedsBackEachOutcome) {
  FakeProvider p({std::string("no code here"), kGood, kGood, kGood, kGood});
  FakeJudge j({verdict("compile_error"), verdict("incorrect"), verdict("correct", 1.5), verdict("correct", 2.5)});
  auto outcome = run_unit(job(p, j, 6, /*stop_first=*/false));
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(*outcome, UnitOutcome::provider_failed);
  // 5 replies then turn 6 hits the exhausted fake: a provider failure.
  ASSERT_EQ(p.received.size(), 6u);
  EXPECT_EQ(p.received[0].size(), 2u);  // system + first turn
  EXPECT_NE(p.received[1].back().content.find("no fenced code block"), std::string::npos);
  EXPECT_NE(p.received[2].back().content.find("identifier \"foo\" is undefined"), std::string::npos);
  EXPECT_NE(p.received[3].back().content.find("incorrect.rel_l2"), std::string::npos);
  EXPECT_NE(p.received[4].back().content.find("Speedup: 1.500x"), std::string::npos);
  EXPECT_NE(p.received[5].back().content.find("Speedup: 2.500x"), std::string::npos);
  // Reasoning is never sent back.
  for (const auto& m : p.received[5]) EXPECT_EQ(m.content.find("return 1;"), std::string::npos);

  auto rs = records();
  ASSERT_EQ(rs.size(), 6u);  // 5 evaluations + provider failure ... unit not done
  EXPECT_EQ(rs[0].verdict_name(), "no_code");
  EXPECT_FALSE(rs[0].source.has_value());
  EXPECT_EQ(rs[1].verdict_name(), "compile_error");
  EXPECT_EQ(rs[4].best, true);  // 2.5x beats 1.5x
  EXPECT_EQ(rs[3].best, false);
  EXPECT_EQ(rs[5].kind, corpus::Kind::provider_failure);
  EXPECT_EQ(rs[5].turn, 6);
  EXPECT_EQ(j.sources.size(), 4u);
  EXPECT_TRUE(fs::exists(dir / rs[1].source->path));
  EXPECT_TRUE(fs::exists(dir / rs[1].reply->path));
}

TEST_F(LoopTest, StopsAtFirstCorrectAndResumeSkipsDoneUnit) {
  FakeProvider p({kGood, kGood});
  FakeJudge j({verdict("incorrect"), verdict("correct", 1.2)});
  auto u = job(p, j, 5);
  ASSERT_EQ(*run_unit(u), UnitOutcome::done);
  auto rs = records();
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[2].kind, corpus::Kind::unit_done);
  EXPECT_EQ(rs[2].reason, "correct");
  EXPECT_EQ(rs[2].best_turn, 2);
  u.prior_records = rs;
  ASSERT_EQ(*run_unit(u), UnitOutcome::done);
  EXPECT_EQ(p.received.size(), 2u);  // no new call
  EXPECT_EQ(records().size(), 3u);
}

TEST_F(LoopTest, StopsOnceAKernelReachesThePeakFraction) {
  FakeProvider p({kGood, kGood, kGood, kGood, kGood});
  FakeJudge j({yardstick_verdict(1.2, 0.38, 0.71, 0.83), verdict("incorrect"), yardstick_verdict(2.0, 0.92, 0.71, 0.83),
               yardstick_verdict(3.0, 0.99, 0.71, 0.83)});
  auto u = job(p, j, 5, /*stop_first=*/false);
  u.settings.search.stop.peak_fraction = 0.9;
  ASSERT_EQ(*run_unit(u), UnitOutcome::done);
  EXPECT_EQ(p.received.size(), 3u);  // turn 3 reached 92% of the bound: no turn 4
  auto rs = records();
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[3].kind, corpus::Kind::unit_done);
  EXPECT_EQ(rs[3].reason, "peak_fraction_reached");
  EXPECT_EQ(rs[3].best_turn, 3);
  // The feedback on a correct kernel names both baselines and where the headroom is.
  const std::string& fb = rs[0].feedback;
  EXPECT_NE(fb.find("1.200x over eager PyTorch"), std::string::npos) << fb;
  EXPECT_NE(fb.find("0.600x over torch.compile"), std::string::npos) << fb;
  EXPECT_NE(fb.find("reaches 38% of the memory bound (1 GB/s and 0 TFLOP/s achieved); eager PyTorch reaches 71%; "
                    "torch.compile reaches 83%"),
            std::string::npos)
      << fb;

  // Resumed after the last evaluation was recorded but before the unit was closed: closed for the same reason,
  // without another model call.
  std::vector<corpus::Record> prior(rs.begin(), rs.end() - 1);
  FakeProvider p2({kGood});
  auto u2 = job(p2, j, 5, false);
  u2.settings.search.stop.peak_fraction = 0.9;
  u2.prior_records = prior;
  ASSERT_EQ(*run_unit(u2), UnitOutcome::done);
  EXPECT_TRUE(p2.received.empty());
  EXPECT_EQ(records().back().reason, "peak_fraction_reached");
}

TEST_F(LoopTest, FeedbackWithoutYardsticksSaysWhatIsUnknown) {
  auto vars = correct_feedback_vars(eval::Verdict::from_json(verdict("correct", 1.5)));
  EXPECT_EQ(vars.at("speedups"), "1.500x over eager PyTorch (1.5000 ms)");
  EXPECT_EQ(vars.at("compile_speedup"), "unknown");
  EXPECT_EQ(vars.at("roofline"), "Its fraction of the hardware's peak is unknown.");
  auto y = correct_feedback_vars(eval::Verdict::from_json(yardstick_verdict(2.0, 0.5, 0.25, 0.4)));
  EXPECT_EQ(y.at("peak_fraction"), "50%");
  EXPECT_EQ(y.at("bound_by"), "memory");
  EXPECT_EQ(y.at("compile_speedup"), "1.000");
  EXPECT_EQ(y.at("baseline"), "eager PyTorch");
}

TEST_F(LoopTest, ProviderFailureThenResumeContinuesTheSameTurnWithTheConversation) {
  FakeProvider p({kGood, providers::ProviderError{providers::ProviderErrorKind::server, "HTTP 503", 503, 3, {}}});
  FakeJudge j({verdict("compile_error"), verdict("correct", 3.0)});
  auto u = job(p, j, 4);
  ASSERT_EQ(*run_unit(u), UnitOutcome::provider_failed);
  auto rs = records();
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[1].kind, corpus::Kind::provider_failure);
  EXPECT_EQ(rs[1].error->kind, "server");

  FakeProvider p2({kGood});
  auto u2 = job(p2, j, 4);
  u2.prior_records = rs;
  ASSERT_EQ(*run_unit(u2), UnitOutcome::done);
  ASSERT_EQ(p2.received.size(), 1u);
  // The rebuilt conversation: system, first, turn-1 answer, its compile-error feedback.
  ASSERT_EQ(p2.received[0].size(), 4u);
  EXPECT_EQ(p2.received[0][2].content, kGood);
  EXPECT_NE(p2.received[0][3].content.find("did not compile"), std::string::npos);
  rs = records();
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[2].turn, 2);
  EXPECT_EQ(rs[2].verdict_name(), "correct");
}

TEST_F(LoopTest, StopRequestPreventsModelCalls) {
  FakeProvider p({kGood});
  FakeJudge j(std::vector<nlohmann::json>{});
  auto u = job(p, j, 3);
  u.may_call_model = [] { return false; };
  ASSERT_EQ(*run_unit(u), UnitOutcome::stopped);
  EXPECT_TRUE(p.received.empty());
  EXPECT_EQ(fs::file_size(dir / "evaluations.jsonl"), 0u);  // opened (and locked) by the writer, nothing appended
}

TEST_F(LoopTest, AStopThatComesWhileTheCallWaitsForItsSlotSendsNothing) {
  FakeProvider p({kGood});
  FakeJudge j(std::vector<nlohmann::json>{verdict("correct", 2.0)});
  auto u = job(p, j, 3);
  int asked = 0;
  u.may_call_model = [&asked] { return ++asked < 2; };  // allowed before the prompt, refused at the slot
  auto outcome = run_unit(u);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, UnitOutcome::stopped);
  EXPECT_TRUE(p.received.empty());
  EXPECT_TRUE(records().empty());
}

TEST_F(LoopTest, AReplyThatArrivedButWasNeverRecordedIsJudgedNotAskedForAgain) {
  // A stop or kill after the reply of turn 1 was saved but before its record was written.
  nlohmann::json saved = {{"answer", kGood},
                          {"reasoning", ""},
                          {"finish_reason", "stop"},
                          {"model", "fake-model"},
                          {"usage", {{"input_tokens", 7}, {"output_tokens", 3}}},
                          {"cost_usd", 7.0},
                          {"attempts", 1},
                          {"latency_s", 0.5},
                          {"sent_at", "2026-01-01T00:00:00.000Z"},
                          {"queue_wait_s", 1.25}};
  ASSERT_TRUE(writer->write_companion("replies", "fake__19_ReLU__s0__t1.json", saved.dump()).ok());
  FakeProvider p({});
  FakeJudge j(std::vector<nlohmann::json>{verdict("correct", 2.0)});
  auto u = job(p, j, 3);
  double charged = 0;
  u.on_spent = [&charged](double usd, int64_t) { charged += usd; };
  auto outcome = run_unit(u);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(*outcome, UnitOutcome::done);
  EXPECT_TRUE(p.received.empty()) << "the model was asked again";
  EXPECT_DOUBLE_EQ(charged, 7.0);
  auto rs = records();
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].turn, 1);
  EXPECT_TRUE(rs[0].correct());
  EXPECT_DOUBLE_EQ(rs[0].cost_usd, 7.0);
  EXPECT_EQ(rs[0].started_at, "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(rs[0].queue_wait_s, 1.25);
  EXPECT_EQ(rs[0].reply->path, "replies/fake__19_ReLU__s0__t1.json");
}

TEST_F(LoopTest, KilledAfterCorrectRecordClosesTheUnitOnResume) {
  FakeProvider p({kGood});
  FakeJudge j(std::vector<nlohmann::json>{verdict("correct", 1.1)});
  auto u = job(p, j, 3);
  ASSERT_EQ(*run_unit(u), UnitOutcome::done);
  auto rs = records();
  rs.pop_back();  // as if killed before unit_done was written
  FakeProvider p2({});
  auto u2 = job(p2, j, 3);
  u2.prior_records = rs;
  ASSERT_EQ(*run_unit(u2), UnitOutcome::done);
  EXPECT_TRUE(p2.received.empty());
}

// A kernelbench-cuda unit: the python block is extracted, stored as .py for the evaluator's kernelbench
// kind, its records name the format, and the feedback is the format's own.
TEST_F(LoopTest, KernelBenchFormatStoresPythonSolutionsAndNamesTheFormat) {
  auto spec = candidate_spec(CandidateFormat::kernelbench_cuda, false);
  ASSERT_TRUE(spec.ok());
  auto t =
      PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts", spec->template_layers);
  ASSERT_TRUE(t.ok()) << t.error().message;
  prompt = PromptBuilder(*t, *spec);
  const std::string solution =
      "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
      "        return x\n";
  FakeProvider p({kGood, "Done.\n```python\n" + solution + "```\n", "```python\n" + solution + "```\n"});
  nlohmann::json fallback = {
      {"verdict", "rejected"},
      {"correct", false},
      {"reasons", {{{"code", "rejected.torch_fallback"}, {"detail", "forward calls no kernel of its own"}}}}};
  FakeJudge j({fallback, verdict("correct", 1.3)});
  auto u = job(p, j, 3);
  u.candidate = *spec;
  ASSERT_EQ(*run_unit(u), UnitOutcome::done);
  auto rs = records();
  ASSERT_EQ(rs.size(), 4u);
  // Turn 1 answered in kf_forward's format: nothing to extract in this one.
  EXPECT_EQ(rs[0].extraction, "no_code_block");
  EXPECT_NE(rs[0].feedback.find("no fenced ```python code block"), std::string::npos) << rs[0].feedback;
  EXPECT_NE(rs[0].feedback.find("labelled cuda"), std::string::npos) << rs[0].feedback;
  EXPECT_NE(rs[0].feedback.find("class ModelNew(nn.Module)"), std::string::npos) << rs[0].feedback;
  EXPECT_NE(rs[1].feedback.find("rejected by the verifier: rejected.torch_fallback: forward calls no kernel"),
            std::string::npos)
      << rs[1].feedback;
  EXPECT_NE(rs[2].feedback.find("Your solution is correct."), std::string::npos) << rs[2].feedback;
  ASSERT_EQ(j.sources.size(), 2u);
  EXPECT_EQ(fs::path(j.sources[0]).extension(), ".py");
  ASSERT_TRUE(rs[1].source);
  EXPECT_EQ(fs::path(rs[1].source->path).extension(), ".py");
  for (const auto& r : rs) EXPECT_EQ(r.candidate_format, "kernelbench-cuda") << corpus::to_string(r.kind);
}

TEST(Conversation, TrimsToTheLastKAttempts) {
  std::vector<Attempt> a = {{"a1", "f1"}, {"a2", "f2"}, {"a3", "f3"}};
  auto all = build_messages("S", "F", a, 0);
  ASSERT_EQ(all.size(), 8u);
  auto last1 = build_messages("S", "F", a, 1);
  ASSERT_EQ(last1.size(), 4u);
  EXPECT_EQ(last1[0].role, "system");
  EXPECT_EQ(last1[1].content, "F");
  EXPECT_EQ(last1[2].role, "assistant");
  EXPECT_EQ(last1[2].content, "a3");
  EXPECT_EQ(last1[3].content, "f3");
  EXPECT_EQ(build_messages("S", "F", a, 5).size(), 8u);
}

TEST(Feedback, EachOutcomeUsesItsTemplate) {
  auto t = PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts");
  ASSERT_TRUE(t.ok());
  nlohmann::json rej = {{"verdict", "rejected"},
                        {"reasons", {{{"code", "rejected.trivial_output"}, {"detail", "matches zeros"}}}}};
  auto r = render_feedback(*t, eval::Verdict::from_json(rej), "cuda");
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->find("rejected by the verifier: rejected.trivial_output: matches zeros"), std::string::npos);
  nlohmann::json to = {{"verdict", "timeout"}, {"reasons", {{{"code", "timeout"}, {"detail", "over 120 s"}}}}};
  EXPECT_NE(render_feedback(*t, eval::Verdict::from_json(to), "cuda")->find("time limit"), std::string::npos);
  nlohmann::json rt = {{"verdict", "runtime_error"},
                       {"reasons", {{{"code", "runtime_error.signal"}, {"detail", "SIGSEGV"}}}}};
  EXPECT_NE(render_feedback(*t, eval::Verdict::from_json(rt), "cuda")->find("SIGSEGV"), std::string::npos);
  // A specific compile_error reason goes before the compiler's output, which need not mention it.
  nlohmann::json ce = {
      {"verdict", "compile_error"},
      {"reasons", {{{"code", "compile_error.missing_package"}, {"detail", "tilelang is not installed"}}}},
      {"compiler_output", "Traceback (most recent call last):\nModuleNotFoundError"}};
  EXPECT_NE(render_feedback(*t, eval::Verdict::from_json(ce), "cuda")
                ->find("compile_error.missing_package: tilelang is not installed\nTraceback"),
            std::string::npos);
  auto nc =
      render_feedback(*t, eval::Verdict::no_code("no_kf_forward", "Your code block does not define kf_forward"), "cpp");
  EXPECT_NE(nc->find("does not define kf_forward"), std::string::npos);
  EXPECT_NE(nc->find("`cpp`"), std::string::npos);
  EXPECT_FALSE(render_feedback(*t, eval::Verdict::from_json({{"verdict", "bogus"}}), "cuda").ok());
}

TEST(Feedback, CompilerOutputIsCappedToTheFirstLines) {
  std::string many;
  for (int i = 0; i < 100; ++i) many += "error " + std::to_string(i) + "\n";
  auto s = first_lines(many, 3);
  EXPECT_EQ(s, "error 0\nerror 1\nerror 2\n... (97 more lines)");
}

}  // namespace
}  // namespace kf::agent
