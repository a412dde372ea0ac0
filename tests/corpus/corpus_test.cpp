// The corpus module: a record's on-disk format both ways, the reader's torn-line policy and shard union,
// the follower, and shard assignment.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "corpus/reader.h"
#include "corpus/shard.h"
#include "corpus/summary.h"
#include "corpus/writer.h"

namespace kf::corpus {
namespace {
namespace fs = std::filesystem;

Record evaluation(const std::string& config, const std::string& problem, int sample, int turn, bool correct,
                  std::optional<double> speedup) {
  Record r;
  r.kind = Kind::evaluation;
  r.run_id = "run-x";
  r.config = config;
  r.provider = "openai-chat";
  r.model = "m";
  r.problem = {problem, "h", "activation", "/p/" + problem + ".py"};
  r.sample = sample;
  r.turn = turn;
  r.usage = {100, 10, 20, 5, "reported"};
  r.cost_usd = 0.25;
  r.reply = ReplyRef{"replies/x.json", "stop", "m", 1, 0.5, 10, 3};
  r.extraction = "ok";
  r.source = SourceRef{"sources/x.cpp", "abc"};
  nlohmann::json v = {{"verdict", correct ? "correct" : "incorrect"}, {"correct", correct}};
  if (speedup) v["speedup"] = *speedup;
  r.verdict = eval::Verdict::from_json(v);
  r.feedback = "fb";
  r.environment = Environment{"0.1", "host", "", "", "2.1", ""};
  r.evaluator = EvaluatorRef{1, 3, "NVIDIA H200", "GPU-123"};
  r.started_at = "t0";
  r.recorded_at = "t1";
  return r;
}

class CorpusDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kforge_corpus_test_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST(Record, RoundTripsEveryField) {
  Record r = evaluation("c", "19_ReLU", 2, 3, true, 1.5);
  r.shard = "1/4";
  r.candidate_format = "kernelbench-cuda";
  auto back = Record::from_json(nlohmann::json::parse(r.to_json().dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), r.to_json());
  EXPECT_EQ(back->candidate_format, "kernelbench-cuda");
  EXPECT_EQ(back->key(), (UnitKey{"c", "19_ReLU", 2}));
  EXPECT_TRUE(back->correct());
  EXPECT_EQ(back->speedup(), 1.5);
  EXPECT_EQ(back->usage.total(), 125);
  ASSERT_TRUE(back->evaluator && back->evaluator->gpu_index);
  EXPECT_EQ(*back->evaluator->gpu_index, 3);
  EXPECT_EQ(back->evaluator->gpu_uuid, "GPU-123");

  Record done;
  done.kind = Kind::unit_done;
  done.config = "c";
  done.problem.name = "p";
  done.reason = "correct";
  done.turns_used = 2;
  done.best_turn = 2;
  auto d = Record::from_json(done.to_json());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->best_turn, 2);
  EXPECT_FALSE(d->to_json().contains("verdict"));
  EXPECT_FALSE(d->to_json().contains("candidate_format"));  // as records written before the field existed
}

TEST(Record, ImportedRoundTripsWithUnknownClaimsAsNull) {
  Record r;
  r.kind = Kind::imported;
  r.config = "run_a";
  r.provider = "kernelbench";
  r.problem = {"19_ReLU", "abc", "activation", "/data/level1/19_ReLU.py"};
  r.sample = 1;
  r.turn = 2;
  r.source = SourceRef{"sources/run_a__level_1_problem_19_sample_1_kernel__v2.py", "def"};
  r.imported = ImportOrigin{"run_a",
                            1,
                            19,
                            "level_1_problem_19_sample_1_kernel.py",
                            "/runs/run_a/x.py",
                            "kernelbench-run",
                            {"cuda_kernel", "vendor_library"}};
  Claim claim;
  claim.compiled = true;
  claim.correct = true;
  claim.runtime_ms = 0.02;
  claim.hardware = "NVIDIA L40S";
  claim.raw = {{"runtime", 0.02}};
  claim.model = "m";
  claim.baseline_kind = "eager";
  claim.speedups = {{"torch_compile", 1.5, 0.03}};
  claim.reference = ClaimReference{"references/ab.py", "ab", "/r/l1_p19.py", true, "sizes: ...", {"sizes"}};
  claim.task_quality = "degenerate";
  r.claim = claim;
  r.warnings = {"runtime \"0.02\" read as a number"};
  const auto j = r.to_json();
  EXPECT_TRUE(j["claim"]["speedup"].is_null());
  EXPECT_FALSE(j.contains("verdict"));
  auto back = Record::from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), j);
  EXPECT_TRUE(back->claimed_correct());
  EXPECT_FALSE(back->correct());  // kforge has not judged it
  EXPECT_FALSE(back->claim->baseline_ms);
  EXPECT_EQ(back->imported->problem_number, 19);
  EXPECT_EQ(back->imported->kinds, (std::vector<std::string>{"cuda_kernel", "vendor_library"}));
  EXPECT_EQ(back->claim->speedup_over("torch_compile"), 1.5);
  EXPECT_FALSE(back->claim->speedup_over("eager"));
  ASSERT_TRUE(back->claim->reference);
  EXPECT_EQ(back->claim->reference->differs, true);
  EXPECT_EQ(back->claim->reference->changes, std::vector<std::string>{"sizes"});
  EXPECT_EQ(back->warnings.size(), 1u);
  auto no_origin = Record::from_json({{"kind", "imported"}, {"config", "c"}, {"problem", {{"name", "p"}}}});
  ASSERT_FALSE(no_origin.ok());
  EXPECT_NE(no_origin.error().message.find("imported"), std::string::npos);
  auto bad_claim = j;
  bad_claim["claim"]["correct"] = "yes";
  auto bad = Record::from_json(bad_claim);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("claim.correct"), std::string::npos);
}

TEST(Record, BadRecordsNameTheField) {
  auto missing = Record::from_json({{"kind", "evaluation"}, {"problem", {{"name", "p"}}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("config"), std::string::npos);
  auto wrong = Record::from_json({{"kind", "evaluation"}, {"config", "c"}, {"problem", {{"name", 3}}}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("problem.name"), std::string::npos);
  auto kind = Record::from_json({{"kind", "nonsense"}, {"config", "c"}, {"problem", {{"name", "p"}}}});
  ASSERT_FALSE(kind.ok());
  auto newer =
      Record::from_json({{"schema", 99}, {"kind", "evaluation"}, {"config", "c"}, {"problem", {{"name", "p"}}}});
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("newer"), std::string::npos);
}

TEST_F(CorpusDir, ReaderSeesEveryShardFileAndSkipsATornTail) {
  auto w0 = Writer::open(dir.string(), Shard{0, 2}.file_name());
  auto w1 = Writer::open(dir.string(), Shard{1, 2}.file_name());
  ASSERT_TRUE(w0.ok() && w1.ok());
  ASSERT_TRUE((*w0)->append(evaluation("c", "a", 0, 1, true, 1.2)).ok());
  ASSERT_TRUE((*w1)->append(evaluation("c", "b", 0, 1, true, 0.8)).ok());
  ASSERT_TRUE((*w1)->append(evaluation("c", "b", 0, 2, true, 2.0)).ok());
  std::ofstream(dir / "evaluations.shard-1-of-2.jsonl", std::ios::app) << "{\"kind\": \"evalu";  // mid-append
  std::ofstream(dir / "evaluations.shard-0-of-2.jsonl", std::ios::app) << "{broken}\n";
  std::ofstream(dir / "notes.jsonl") << "{}\n";  // not a corpus file

  auto c = load(dir.string());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->files, (std::vector<std::string>{"evaluations.shard-0-of-2.jsonl", "evaluations.shard-1-of-2.jsonl"}));
  ASSERT_EQ(c->records.size(), 3u);
  EXPECT_EQ(c->torn_tails, 1);
  ASSERT_EQ(c->damaged.size(), 1u);
  EXPECT_EQ(c->damaged[0].line, 2u);
  EXPECT_FALSE(c->records[1].best);  // 0.8x loses to 2.0x at turn 2
  EXPECT_TRUE(c->records[2].best);
  EXPECT_TRUE(c->records[0].best);

  // A writer reopening its torn file cuts the torn record off before it appends, keeping its bytes aside;
  // opening alone changes nothing.
  w1->reset();
  const auto torn_size = fs::file_size(dir / Shard{1, 2}.file_name());
  auto again = Writer::open(dir.string(), Shard{1, 2}.file_name());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(fs::file_size(dir / Shard{1, 2}.file_name()), torn_size);
  EXPECT_FALSE(fs::exists(dir / "torn"));
  ASSERT_TRUE((*again)->append(evaluation("c", "b", 1, 1, false, std::nullopt)).ok());
  auto c2 = load(dir.string());
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->records.size(), 4u);
  EXPECT_EQ(c2->damaged.size(), 1u);  // only the damaged complete line; the torn one is gone
  EXPECT_EQ(c2->torn_tails, 0);
  std::vector<fs::path> kept;
  for (const auto& e : fs::directory_iterator(dir / "torn")) kept.push_back(e.path());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].filename().string().rfind(Shard{1, 2}.file_name() + ".", 0), 0u) << kept[0];
  std::ifstream in(kept[0], std::ios::binary);
  const std::string fragment((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(fragment.rfind("{\"", 0), 0u) << fragment;  // the torn record's bytes, as they were
  EXPECT_EQ(fragment.find('\n'), std::string::npos);
}

TEST_F(CorpusDir, StreamingAgreesWithTheLoadAndReadsRecordsBackByPlace) {
  auto w = Writer::open(dir.string());
  auto shard = Writer::open(dir.string(), Shard{0, 2}.file_name());
  ASSERT_TRUE(w.ok() && shard.ok());
  auto failure = evaluation("c", "a", 0, 1, false, std::nullopt);
  failure.kind = Kind::provider_failure;
  failure.verdict.reset();
  failure.error = ProviderErrorInfo{"rate_limit", "none", "m", "a", 429, 2};
  for (const auto& r : {evaluation("c", "a", 0, 1, false, std::nullopt), evaluation("c", "a", 0, 2, true, 1.5),
                        evaluation("c", "a", 0, 3, true, 2.5), failure})
    ASSERT_TRUE((*w)->append(r).ok());
  ASSERT_TRUE((*shard)->append(evaluation("d", "b", 1, 1, true, std::nullopt)).ok());
  {
    std::ofstream damaged(dir / "evaluations.jsonl", std::ios::app);
    damaged << "{\"not\": \"a record\"}\n{\"torn";
  }
  auto full = load(dir.string());
  ASSERT_TRUE(full.ok());
  std::vector<std::pair<RecordSummary, RecordPlace>> seen;
  auto streamed = stream(dir.string(), [&](const RecordSummary& s, std::string_view line, const RecordPlace& at) {
    EXPECT_EQ(line.size(), at.length);
    seen.emplace_back(s, at);
  });
  ASSERT_TRUE(streamed.ok()) << streamed.error().message;
  EXPECT_TRUE(streamed->records.empty()) << "a stream keeps no record";
  EXPECT_EQ(streamed->files, full->files);
  EXPECT_EQ(streamed->damaged.size(), full->damaged.size());
  EXPECT_EQ(streamed->torn_tails, 1);
  ASSERT_EQ(seen.size(), full->records.size());
  RecordReader reader(*streamed);
  for (size_t i = 0; i < seen.size(); ++i) {
    const auto& a = full->records[i];
    const auto& [s, place] = seen[i];
    EXPECT_EQ(a.kind, s.kind);
    EXPECT_EQ(a.key(), s.key);
    EXPECT_EQ(a.turn, s.turn);
    EXPECT_EQ(a.provider, s.provider);
    EXPECT_EQ(a.problem.category, s.category);
    EXPECT_EQ(a.usage.total(), s.tokens);
    EXPECT_DOUBLE_EQ(a.cost_usd, s.cost_usd);
    EXPECT_EQ(a.verdict ? std::optional(a.verdict->kind) : std::nullopt, s.verdict);
    EXPECT_EQ(a.correct(), s.correct);
    EXPECT_EQ(a.speedup(), s.speedup);
    EXPECT_EQ(a.error ? a.error->kind : "", s.error_kind);
    auto back = reader.at(place);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->to_json(), a.to_json()) << i;
    auto judged = reader.verdict_at(place);  // what judging reads, and nothing else
    ASSERT_TRUE(judged.ok()) << judged.error().message;
    EXPECT_EQ(judged->kind, a.kind);
    EXPECT_EQ(judged->key(), a.key());
    EXPECT_EQ(judged->turn, a.turn);
    EXPECT_EQ(judged->problem.file_hash, a.problem.file_hash);
    EXPECT_EQ(judged->verdict ? judged->verdict->to_json() : nlohmann::json(),
              a.verdict ? a.verdict->to_json() : nlohmann::json())
        << i;
    EXPECT_TRUE(judged->feedback.empty());
  }
  auto beyond = reader.at({0, fs::file_size(dir / "evaluations.jsonl") + 10, 20});
  EXPECT_FALSE(beyond.ok());
}

TEST(Best, StreamingRankAgreesWithMarkBest) {
  // Higher speedup wins; timed beats untimed; earlier turn on ties; the first read on a full tie stays.
  EXPECT_TRUE(ranks_above(2.0, 3, 1.5, 1));
  EXPECT_FALSE(ranks_above(1.5, 1, 2.0, 3));
  EXPECT_TRUE(ranks_above(0.5, 4, std::nullopt, 1));
  EXPECT_FALSE(ranks_above(std::nullopt, 1, 0.5, 4));
  EXPECT_TRUE(ranks_above(1.5, 1, 1.5, 2));
  EXPECT_FALSE(ranks_above(1.5, 2, 1.5, 1));
  EXPECT_TRUE(ranks_above(std::nullopt, 1, std::nullopt, 2));
  EXPECT_FALSE(ranks_above(1.5, 2, 1.5, 2));
}

TEST_F(CorpusDir, OneWriterPerFile) {
  auto first = Writer::open(dir.string());
  ASSERT_TRUE(first.ok());
  auto second = Writer::open(dir.string());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, "corpus.busy");
  EXPECT_TRUE(Writer::open(dir.string(), Shard{0, 2}.file_name()).ok());  // another file: fine
  first = Writer::open(dir.string(), Shard{1, 2}.file_name());            // the first one closes
  EXPECT_TRUE(Writer::open(dir.string()).ok());
}

TEST_F(CorpusDir, AWriterThatWaitsGetsTheFileOnceTheOtherCloses) {
  auto first = Writer::open(dir.string());
  ASSERT_TRUE(first.ok());
  std::thread closer([&first] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    first->reset();
  });
  auto second = Writer::open(dir.string(), "evaluations.jsonl", /*wait_s=*/60);
  closer.join();
  EXPECT_TRUE(second.ok()) << (second.ok() ? "" : second.error().message);
}

TEST_F(CorpusDir, NoCorpusIsAnError) {
  auto c = load(dir.string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("kforge run --out"), std::string::npos);
}

TEST_F(CorpusDir, FollowerReturnsEachCompleteRecordOnce) {
  Follower f(dir.string());
  EXPECT_TRUE(f.poll().empty());
  auto w = Writer::open(dir.string());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->append(evaluation("c", "a", 0, 1, true, 1.0)).ok());
  EXPECT_EQ(f.poll().size(), 1u);
  EXPECT_TRUE(f.poll().empty());
  std::ofstream(dir / "evaluations.shard-3-of-4.jsonl")
      << evaluation("c", "z", 0, 1, false, std::nullopt).to_json().dump();
  EXPECT_TRUE(f.poll().empty());  // no newline yet
  std::ofstream(dir / "evaluations.shard-3-of-4.jsonl", std::ios::app) << "\n";
  auto more = f.poll();
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].problem.name, "z");
}

TEST(Summary, AgreesWithTheFullParserAndLeavesDoubtfulLinesToIt) {
  auto r = evaluation("cfg", "19_ReLU", 3, 2, true, 1.5);
  r.cost_usd = 0.25;
  r.usage = {100, 10, 20, 5, "reported"};
  r.feedback = "quote \" backslash \\ newline \n tab \t unicode \u00e9 and a brace } inside";
  r.recorded_at = "2026-01-01T00:00:00.000Z";
  const std::string line = r.to_json().dump();
  auto s = summarize_line(line);
  ASSERT_TRUE(s.has_value()) << line;
  const auto full = RecordSummary::of(*Record::from_json(nlohmann::json::parse(line)));
  EXPECT_EQ(s->kind, full.kind);
  EXPECT_EQ(s->key, full.key);
  EXPECT_EQ(s->turn, 2);
  EXPECT_DOUBLE_EQ(s->cost_usd, 0.25);
  EXPECT_EQ(s->tokens, full.tokens);
  EXPECT_TRUE(s->correct);
  EXPECT_EQ(s->recorded_at, full.recorded_at);
  auto wrong = evaluation("cfg", "p", 0, 1, false, std::nullopt);
  auto ws = summarize_line(wrong.to_json().dump());
  ASSERT_TRUE(ws.has_value());
  EXPECT_FALSE(ws->correct);
  // Lines the scanner does not vouch for: the full parser decides (and names the problem).
  for (const std::string bad : {R"({"kind": "evaluation", "config": "c", "problem": {"name": "p"}, "turn": "2"})",
                                R"({"kind": "evaluation", "config": "c", "problem": {"name": "p"}, "feedback": 3})",
                                R"({"kind": "evaluation", "config": "c"})",
                                R"({"kind": "evaluation", "config": "c", "problem": {"name": "p"}} trailing)",
                                R"({"kind": "nonsense", "config": "c", "problem": {"name": "p"}})",
                                R"({"kind": "evaluation", "config": "c", "problem": {"name": "p"}, "verdict": [1]})",
                                R"({"kind": "evaluation", "conf)", "not json"}) {
    EXPECT_FALSE(summarize_line(bad).has_value()) << bad;
    if (nlohmann::json::accept(bad)) {
      EXPECT_FALSE(Record::from_json(nlohmann::json::parse(bad)).ok()) << bad;
    }
  }
}

TEST(Summary, FindsEveryQuoteEscapeAndControlCharacterWhereverItFallsInAWord) {
  // The scanner reads string text and digits eight bytes at a time: a stop at each position of a word, and
  // after non-ASCII text, is found exactly where it is; numbers of every length read as the full parser reads them.
  for (size_t at = 0; at < 20; ++at) {
    for (const std::string& prefix : {std::string(at, 'a'), std::string(at, 'a') + "\xc3\xa9"}) {
      auto r = evaluation("cfg", "p", 0, 1, true, 1.0 / 3.0 + static_cast<double>(at) * 1234.5);  // many digits
      r.cost_usd = std::pow(10.0, static_cast<double>(at)) / 7.0;
      r.feedback = prefix + "\"q\\b\n" + std::string(at, 'z');
      const std::string line = r.to_json().dump();
      auto s = summarize_line(line);
      ASSERT_TRUE(s.has_value()) << line;
      EXPECT_TRUE(s->correct);
      EXPECT_EQ(s->speedup, r.speedup());
      EXPECT_EQ(s->cost_usd, r.cost_usd);
      auto judged = verdict_of_line(line);
      ASSERT_TRUE(judged.has_value()) << line;
      EXPECT_EQ(judged->verdict ? judged->verdict->to_json() : nlohmann::json(),
                r.verdict ? r.verdict->to_json() : nlohmann::json());
      // A raw control character inside the string: not JSON, whichever byte of a word it is.
      std::string raw = line;
      raw.replace(raw.find(prefix + "\\\"q"), prefix.size(),
                  prefix.substr(0, prefix.size() / 2) + "\t" + prefix.substr(prefix.size() / 2));
      EXPECT_FALSE(summarize_line(raw).has_value()) << raw;
      EXPECT_FALSE(nlohmann::json::accept(raw)) << raw;
    }
  }
}

TEST(ShardSpec, ParsesAndPartitionsDeterministically) {
  EXPECT_TRUE(Shard::parse("0/1").ok());
  auto s = Shard::parse("3/8");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 8);
  EXPECT_EQ(s->file_name(), "evaluations.shard-3-of-8.jsonl");
  EXPECT_EQ(Shard{}.file_name(), "evaluations.jsonl");
  for (const char* bad : {"", "3", "8/8", "-1/2", "1/0", "a/b", "1/2x", "1//2"})
    EXPECT_FALSE(Shard::parse(bad).ok()) << bad;
  // Every unit in exactly one shard, and a fixed assignment (stable across machines and versions).
  std::map<int, int> sizes;
  for (int p = 0; p < 50; ++p)
    for (int smp = 0; smp < 4; ++smp) {
      UnitKey k{"cfg", "problem_" + std::to_string(p), smp};
      int owners = 0;
      for (int i = 0; i < 4; ++i) owners += Shard{i, 4}.owns(k) ? 1 : 0;
      EXPECT_EQ(owners, 1);
      ++sizes[Shard::shard_of(k, 4)];
    }
  for (int i = 0; i < 4; ++i) EXPECT_GT(sizes[i], 20) << "shard " << i << " is nearly empty";
  EXPECT_EQ(Shard::shard_of({"a", "b", 0}, 1000), 527);  // first 8 bytes of sha256("a\nb\n0") mod 1000
}

}  // namespace
}  // namespace kf::corpus
