// Search strategies and stop rules: what each strategy asks given a history, the stop rules' reasons, and whole
// searches through the loop against a keyed fake model (its answer depends on the parent kernel the prompt shows,
// never on the order the calls come in) and a judge that reads the kernel's speed from its source: lineage, the
// per-unit evaluation budget, parallel rounds, and resume after a stop with no model call repeated.
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <tuple>

#include <gtest/gtest.h>

#include "agent/campaign/loop.h"
#include "agent/search/ask_messages.h"
#include "agent/search/stop_rule.h"
#include "agent/search/strategy.h"
#include "agent/search/structure.h"
#include "core/files.h"
#include "corpus/reader.h"

namespace kf::agent {
namespace {
namespace fs = std::filesystem;
using search::Ask;
using search::History;
using search::Judged;

// A kernel whose measured speedup is `speed` (0: incorrect); `tag` tells siblings apart.
std::string kernel(int speed, const std::string& tag) {
  return "```cuda\n#include \"kforge.h\"\n// speed=" + std::to_string(speed) + " tag=" + tag +
         "\nextern \"C\" int kf_forward(const kf_tensor* i, int32_t n, kf_tensor* o, int32_t m, void* s) { return 0; "
         "}\n```\n";
}

std::optional<int> speed_in(const std::string& text) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("speed=(\\d+)"))) return std::stoi(m[1]);
  return std::nullopt;
}

// Answers a first turn with speed 1; a prompt showing a parent of speed s (the assistant message) with s + 1,
// except that every third child (by the parent's speed) is incorrect. Thread-safe; counts the calls.
class KeyedModel : public providers::Provider {
 public:
  KeyedModel() {
    config_.name = "keyed";
    config_.model = "keyed-model";
  }
  providers::ProviderResult<providers::Reply> complete(const std::vector<providers::ChatMessage>& messages,
                                                       const providers::CallGate& gate = {}) override {
    if (gate.may_send && !gate.may_send())
      return providers::ProviderError{providers::ProviderErrorKind::not_sent, "not sent", 0, 0, {}};
    if (gate.sent) gate.sent();
    std::string parent;
    for (const auto& m : messages)
      if (m.role == "assistant") parent = m.content;
    const int parent_speed = speed_in(parent).value_or(0);
    const int speed = parent.empty() ? 1 : (parent_speed % 3 == 2 ? 0 : parent_speed + 1);
    providers::Reply r;
    r.answer = kernel(speed, std::to_string(parent_speed));
    r.usage.input_tokens = 10;
    r.cost_usd = 1.0;
    {
      std::lock_guard lock(mu_);
      prompts.push_back(messages);
    }
    if (gate.settled) gate.settled(r.cost_usd, r.usage.input_tokens);
    return r;
  }
  const providers::ModelConfig& config() const override { return config_; }
  size_t calls() {
    std::lock_guard lock(mu_);
    return prompts.size();
  }
  std::vector<std::vector<providers::ChatMessage>> prompts;

 private:
  std::mutex mu_;
  providers::ModelConfig config_;
};

// Correct with the source's speed as its speedup; speed 0 is incorrect.
class SpeedJudge : public KernelJudge {
 public:
  Judgment judge(const ProblemInfo&, const std::string& source_path) override {
    auto source = read_file(source_path);
    const int speed = source ? speed_in(*source).value_or(0) : 0;
    nlohmann::json j = {{"verdict", speed > 0 ? "correct" : "incorrect"},
                        {"correct", speed > 0},
                        {"reasons", nlohmann::json::array()},
                        {"checks", nlohmann::json::object()}};
    if (speed > 0) {
      j["time_ms"] = 1.0 / speed;
      j["ref_time_ms"] = 1.0;
      j["speedup"] = static_cast<double>(speed);
    } else {
      j["reasons"].push_back({{"code", "incorrect.rel_l2"}, {"detail", "output0 rel_l2 0.5"}});
    }
    return {eval::Verdict::from_json(j), corpus::EvaluatorRef{0, std::nullopt, "", ""}};
  }
};

class SearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kforge_search_test_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    auto t = PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts");
    ASSERT_TRUE(t.ok());
    prompt = PromptBuilder(*t, CandidateSpec{});
    open_writer();
    problem = {"19_ReLU", "/nonexistent/19_ReLU.py", "abc", "activation", "src"};
    run.run_id = "test-run";
  }
  void TearDown() override {
    writer.reset();
    fs::remove_all(dir);
  }
  void open_writer() {
    writer.reset();
    auto w = corpus::Writer::open(dir.string());
    ASSERT_TRUE(w.ok());
    writer = std::move(*w);
  }
  UnitJob job(providers::Provider& p, KernelJudge& j, const std::string& strategy, int rounds) {
    UnitJob u;
    u.key = {"keyed", "19_ReLU", 0};
    u.problem = &problem;
    u.provider = &p;
    u.judge = &j;
    u.prompt = &prompt;
    u.corpus = writer.get();
    u.run = &run;
    u.settings.search.strategy = strategy;
    u.settings.search.rounds = rounds;
    u.settings.search.stop.first_correct = false;
    u.settings.search.seed = 7;
    u.system_prompt = "SYSTEM";
    u.first_turn = "FIRST";
    return u;
  }
  std::vector<corpus::Record> records() {
    auto c = corpus::load(dir.string());
    EXPECT_TRUE(c.ok());
    return c.ok() ? c->records : std::vector<corpus::Record>{};
  }
  // Runs the unit to its end, stopping it (as a Ctrl-C would) after every `stop_every` calls and resuming it from
  // the corpus each time; returns the number of sessions it took.
  int run_with_stops(KeyedModel& model, SpeedJudge& judge, const std::function<void(UnitJob&)>& tune,
                     const std::string& strategy, int rounds, int stop_every) {
    for (int session = 1; session < 100; ++session) {
      open_writer();
      auto u = job(model, judge, strategy, rounds);
      tune(u);
      u.prior_records = records();
      auto allowed = std::make_shared<std::atomic<int>>(stop_every);
      u.may_call_model = [allowed] { return allowed->fetch_sub(1) > 0; };
      auto outcome = run_unit(u);
      EXPECT_TRUE(outcome.ok()) << outcome.error().message;
      if (!outcome.ok() || *outcome == UnitOutcome::done) return session;
    }
    return 100;
  }

  fs::path dir;
  PromptBuilder prompt;
  std::unique_ptr<corpus::Writer> writer;
  ProblemInfo problem;
  RunContext run;
};

Judged judged(int turn, int round, std::optional<double> speedup, std::optional<int> island = std::nullopt) {
  Judged j;
  j.id = {0, turn};
  j.round = round;
  j.island = island;
  j.correct = speedup.has_value();
  j.speedup = speedup;
  j.answer = kernel(speedup ? static_cast<int>(*speedup) : 0, std::to_string(turn));
  j.feedback = "FEEDBACK " + std::to_string(turn);
  return j;
}

TEST(Strategies, BeamKeepsTheWidthBestAndRepairsWhileShort) {
  search::SearchSettings s;
  s.strategy = "beam";
  s.beam.width = 2;
  s.beam.diverse = false;  // the plain ranking (every kernel here has one structure)
  auto beam = search::make_strategy(s);
  ASSERT_TRUE(beam.ok());
  History h;
  EXPECT_EQ((*beam)->next_round(h, 1, 100).size(), 2u);  // two first turns
  h.add(judged(1, 1, 1.5));
  h.add(judged(2, 1, std::nullopt));
  auto asks = (*beam)->next_round(h, 2, 100);
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 1}}));  // the correct one improved
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 2}}));  // the failed one repaired
  h.add(judged(3, 2, 3.0));
  h.add(judged(4, 2, 2.0));
  asks = (*beam)->next_round(h, 3, 100);
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 3}}));
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 4}}));
  EXPECT_EQ((*beam)->next_round(h, 3, 1).size(), 1u);  // a budget's remainder cuts the round
}

TEST(Strategies, BeamKeepsOnePlaceForByteIdenticalKernels) {
  search::SearchSettings s;
  s.strategy = "beam";
  s.beam.width = 2;
  s.beam.diverse = false;
  auto beam = search::make_strategy(s);
  ASSERT_TRUE(beam.ok());
  History h;
  // Turns 1 and 2 are the same kernel (as a model that repeats itself gives): the second place goes to the
  // slower turn 3, not to a copy.
  for (auto [turn, speedup, sha] : {std::tuple{1, 2.0, "aa"}, std::tuple{2, 2.0, "aa"}, std::tuple{3, 1.2, "bb"}}) {
    Judged j = judged(turn, 1, speedup);
    j.source_sha256 = sha;
    h.add(j);
  }
  auto asks = (*beam)->next_round(h, 2, 100);
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 1}}));
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 3}}));
}

TEST(KernelStructure, CountsTheCodesLoopsAndNamesSharedMemoryMatrixAndVectorUse) {
  // Only the fenced code counts: the prose's "for (" and "while (" do not.
  EXPECT_EQ(search::kernel_structure("Loops for (i) here.\n```cpp\nfor (int i = 0; i < n; ++i) while(x) {}\n```\n"
                                     "and for (j) there"),
            "loops=2");
  EXPECT_EQ(search::kernel_structure("__global__ void k() { __shared__ float t[32]; float4 v; for(;;) {} }"),
            "loops=1 shared vector");
  EXPECT_EQ(search::kernel_structure("wmma::mma_sync(c, a, b, c); formula(); fortune(x);"), "loops=0 mma");
  // Triton: Python's loop lines, tl.dot as a matrix instruction.
  EXPECT_EQ(search::kernel_structure("```python\n@triton.jit\ndef k(p):\n    for k in range(0, K, 32):\n"
                                     "        acc += tl.dot(a, b)\n```"),
            "loops=1 mma");
}

// A kernel of the given speed whose structure has `loops` loops.
Judged shaped(int turn, int round, double speedup, int loops) {
  Judged j = judged(turn, round, speedup);
  std::string body;
  for (int i = 0; i < loops; ++i)
    body += "for (int i" + std::to_string(i) + " = 0; i" + std::to_string(i) + " < 2; ++i" + std::to_string(i) + ") ";
  j.answer = "```cuda\n" + body + ";\n```\n";
  j.structure = search::kernel_structure(j.answer);
  return j;
}

TEST(Strategies, DiverseBeamGivesAStructureOnePlaceAndFollowsANewStructureOnce) {
  search::SearchSettings s;
  s.strategy = "beam";
  s.beam.width = 2;
  auto beam = search::make_strategy(s);
  ASSERT_TRUE(beam.ok());
  History h;
  h.add(shaped(1, 1, 3.0, 2));
  h.add(shaped(2, 1, 2.5, 2));  // a variation of turn 1's design
  h.add(shaped(3, 1, 1.0, 5));  // another design, slower
  auto asks = (*beam)->next_round(h, 2, 100);
  ASSERT_EQ(asks.size(), 2u);
  // Each design's first kernel is new in round 1 and followed up (turn 3 though turn 2 is faster): not turn 2,
  // a variation of turn 1's design.
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 1}}));
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 3}}));
  // Round 2: a third design appears, slower than both; it is followed up once and takes the first place.
  h.add(shaped(4, 2, 1.2, 5));
  h.add(shaped(5, 2, 0.5, 9));
  asks = (*beam)->next_round(h, 3, 100);
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 5}}));
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 1}}));
  // Round 3 adds nothing new: the places go to the best of each design by speed (turn 4 over turn 3).
  h.add(shaped(6, 3, 0.4, 9));
  asks = (*beam)->next_round(h, 4, 100);
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 1}}));
  EXPECT_EQ(asks[1].parents, (std::vector<corpus::RecordId>{{0, 4}}));
}

TEST(Strategies, EvolveKeepsTheBestOfEachDesignAndFollowsANewOneOnce) {
  search::SearchSettings s;
  s.strategy = "evolve";
  s.evolve.islands = 1;
  s.evolve.children = 2;
  History h;
  for (Judged j : {shaped(1, 1, 3.0, 2), shaped(2, 1, 2.9, 2), shaped(3, 2, 1.0, 5), shaped(4, 2, 3.1, 2)}) {
    j.island = 0;
    h.add(j);
  }
  for (int draw = 0; draw < 3; ++draw) {  // whatever the seed draws
    s.seed = static_cast<uint64_t>(draw);
    auto drawn = search::make_strategy(s);
    ASSERT_TRUE(drawn.ok());
    const auto asks = (*drawn)->next_round(h, 3, 100);
    ASSERT_EQ(asks.size(), 2u);
    // Turn 3 is the island's first kernel of its design, slower than the other: followed up once.
    EXPECT_EQ(asks[0].parents, (std::vector<corpus::RecordId>{{0, 3}}));
    // The tournament draws from the best of each design: turns 1 and 2 are outranked by turn 4 of theirs.
    ASSERT_EQ(asks[1].parents.size(), 1u);
    const int parent = asks[1].parents.front().turn;
    EXPECT_TRUE(parent == 3 || parent == 4) << parent;
  }
}

TEST(Strategies, BestOfNAsksNThenRefinesTheBest) {
  search::SearchSettings s;
  s.strategy = "best_of_n";
  s.best_of_n.n = 3;
  auto best = search::make_strategy(s);
  ASSERT_TRUE(best.ok());
  History h;
  EXPECT_EQ((*best)->next_round(h, 1, 100).size(), 3u);
  h.add(judged(1, 1, 1.0));
  h.add(judged(2, 1, 4.0));
  h.add(judged(3, 1, std::nullopt));
  auto asks = (*best)->next_round(h, 2, 100);
  ASSERT_EQ(asks.size(), 1u);
  EXPECT_EQ(asks[0].parents.front().turn, 2);
}

TEST(Strategies, EvolveDrawsTheSameParentsFromTheSameHistoryAndShowsInspirations) {
  search::SearchSettings s;
  s.strategy = "evolve";
  s.seed = 11;
  s.evolve.islands = 2;
  s.evolve.children = 2;
  s.evolve.inspirations = 1;
  auto evolve = search::make_strategy(s);
  ASSERT_TRUE(evolve.ok());
  History h;
  auto first = (*evolve)->next_round(h, 1, 100);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0].island, 0);
  EXPECT_EQ(first[1].island, 1);  // interleaved by island
  h.add(judged(1, 1, 2.0, 0));
  h.add(judged(2, 1, 5.0, 1));
  h.add(judged(3, 1, 3.0, 0));
  h.add(judged(4, 1, std::nullopt, 1));
  const auto a = (*evolve)->next_round(h, 2, 100);
  const auto b = (*evolve)->next_round(h, 2, 100);
  ASSERT_EQ(a.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].parents, b[i].parents);
    EXPECT_EQ(a[i].inspirations, b[i].inspirations);
  }
  // Island 1's failed child is repaired once; island 0's parents are its own kernels, the other as inspiration.
  bool repaired = false;
  for (const auto& ask : a) {
    ASSERT_EQ(ask.parents.size(), 1u);
    if (ask.parents.front().turn == 4) repaired = true;
    if (ask.island == 0) {
      EXPECT_TRUE(ask.parents.front().turn == 1 || ask.parents.front().turn == 3);
      ASSERT_EQ(ask.inspirations.size(), 1u);
      EXPECT_NE(ask.inspirations.front(), ask.parents.front());
    }
  }
  EXPECT_TRUE(repaired);
  // The improve prompt carries the parent verbatim and the inspiration's source with its figures.
  Ask improve{Ask::Prompt::improve, {{0, 1}}, {{0, 3}}, 0};
  auto messages = search::messages_for(improve, h, {"SYS", "FIRST", 0, providers::CandidateFormat::kf_forward});
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[2].content, h.find({0, 1})->answer);
  EXPECT_NE(messages[3].content.find("FEEDBACK 1"), std::string::npos);
  EXPECT_NE(messages[3].content.find("speed=3"), std::string::npos);
  EXPECT_NE(messages[3].content.find("speedup 3.00x"), std::string::npos);
}

TEST(StopRules, PlateauCountsOnlyImprovementsBeyondTheNoise) {
  search::SearchSettings s;
  s.stop.first_correct = false;
  s.stop.plateau_evaluations = 2;
  s.rounds = 100;
  const auto rules = search::StopRules::from(s);
  History h;
  auto best = judged(1, 1, 2.0);
  best.timing_noise = 0.10;
  h.add(best);
  h.add(judged(2, 2, 2.1));  // within 10%: no improvement
  EXPECT_FALSE(rules.reached(h));
  h.add(judged(3, 3, std::nullopt));
  EXPECT_EQ(rules.reached(h), "plateau");
  History g;
  g.add(best);
  g.add(judged(2, 2, 2.5));  // beyond the noise
  g.add(judged(3, 3, std::nullopt));
  EXPECT_FALSE(rules.reached(g));
}

TEST(StopRules, BudgetsNameTheirRuleAndTheEvaluationBudgetLimitsARound) {
  search::SearchSettings s;
  s.stop.first_correct = false;
  s.stop.evaluations = 3;
  s.stop.usd = 2.5;
  s.rounds = 100;
  const auto rules = search::StopRules::from(s);
  History h;
  auto j = judged(1, 1, 1.0);
  j.usd = 1;
  h.add(j);
  EXPECT_EQ(rules.evaluations_left(h), 2);
  EXPECT_FALSE(rules.refuses_call(h.spend()));
  search::Spend spent = h.spend();
  spent.usd = 2.5;
  EXPECT_EQ(rules.refuses_call(spent), "budget_usd");
  j.id.turn = 2;
  h.add(j);
  j.id.turn = 3;
  h.add(j);
  // Both budgets are reached: the first rule in order (evaluations, tokens, dollars) names the reason.
  EXPECT_EQ(rules.reached(h), "budget_evaluations");
  EXPECT_EQ(rules.evaluations_left(h), 0);
}

TEST_F(SearchTest, BeamRecordsLineageRunsRoundsInParallelAndKeepsTheEvaluationBudget) {
  KeyedModel model;
  SpeedJudge judge;
  auto u = job(model, judge, "beam", 10);
  u.settings.search.beam.width = 3;
  u.settings.search.stop.evaluations = 7;
  auto outcome = run_unit(u);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(*outcome, UnitOutcome::done);
  EXPECT_EQ(model.calls(), 7u);  // 3 + 3 + the remainder 1: never more than the budget
  const auto rs = records();
  ASSERT_EQ(rs.size(), 8u);
  EXPECT_EQ(rs.back().kind, corpus::Kind::unit_done);
  EXPECT_EQ(rs.back().reason, "budget_evaluations");
  EXPECT_EQ(rs.back().turns_used, 7);
  std::set<int> turns;
  for (const auto& r : rs) {
    if (r.kind != corpus::Kind::evaluation) continue;
    turns.insert(r.turn);
    ASSERT_TRUE(r.lineage) << r.turn;
    EXPECT_EQ(r.lineage->strategy, "beam");
    EXPECT_EQ(r.lineage->round, r.turn <= 3 ? 1 : r.turn <= 6 ? 2 : 3);
    EXPECT_EQ(r.lineage->parents.empty(), r.turn != 4 && r.turn != 7) << r.turn;
  }
  EXPECT_EQ(turns, (std::set<int>{1, 2, 3, 4, 5, 6, 7}));
  // The three first turns are one byte-identical kernel, so it holds one place: round 2 improves it into speed 2
  // (turn 4) and fills the two free places with fresh first turns (5, 6); round 3's one remaining evaluation goes
  // to the best kernel, turn 4, whose child is incorrect.
  std::map<int, double> speed;
  for (const auto& r : rs)
    if (r.kind == corpus::Kind::evaluation) speed[r.turn] = r.speedup().value_or(0);
  EXPECT_EQ(speed, (std::map<int, double>{{1, 1.0}, {2, 1.0}, {3, 1.0}, {4, 2.0}, {5, 1.0}, {6, 1.0}, {7, 0.0}}));
}

TEST_F(SearchTest, StoppedAndResumedSearchesEndInTheSameStateWithNoCallRepeated) {
  for (const std::string strategy : {"beam", "evolve", "best_of_n"}) {
    SCOPED_TRACE(strategy);
    auto tune = [](UnitJob& u) {
      u.settings.search.beam.width = 2;
      u.settings.search.evolve.islands = 2;
      u.settings.search.evolve.children = 2;
      u.settings.search.evolve.migrate_every = 2;
      u.settings.search.best_of_n.n = 3;
    };
    KeyedModel straight;
    SpeedJudge judge;
    ASSERT_EQ(run_with_stops(straight, judge, tune, strategy, 5, 1000), 1);
    auto expected = records();
    fs::remove_all(dir);
    KeyedModel stopped;
    // A round of evolve asks 4 calls, each checked twice (before its prompt and at its slot): 5 allowed checks let
    // at least one call through per session and stop every round midway.
    EXPECT_GT(run_with_stops(stopped, judge, tune, strategy, 5, 5), 2);
    auto got = records();
    EXPECT_EQ(stopped.calls(), straight.calls()) << "a model call was repeated or lost";
    auto key = [](const std::vector<corpus::Record>& rs) {
      std::map<int, std::string> out;
      for (const auto& r : rs)
        if (r.kind == corpus::Kind::evaluation)
          out[r.turn] =
              r.lineage->to_json().dump() + " " + r.verdict_name() + " " + std::to_string(r.speedup().value_or(0));
      return out;
    };
    EXPECT_EQ(key(got), key(expected));
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back().kind, corpus::Kind::unit_done);
    EXPECT_EQ(got.back().reason, expected.back().reason);
    EXPECT_EQ(got.back().best_turn, expected.back().best_turn);
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace kf::agent
