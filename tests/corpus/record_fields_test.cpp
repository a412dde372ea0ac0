// The record's field table (corpus/record_fields.h) and the record's own to_json name the same keys with the same
// types, so the fast scanner (summary.cpp), which knows the record only through the table, checks what the full
// parser requires.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "corpus/record.h"
#include "corpus/record_fields.h"
#include "corpus/summary.h"

namespace kf::corpus {
namespace {

using json = nlohmann::json;

// A record of `kind` with every field its kind writes filled in.
Record full(Kind kind) {
  Record r;
  r.kind = kind;
  r.run_id = "run-x";
  r.shard = "1/2";
  r.config = "c";
  r.provider = "openai-chat";
  r.model = "m";
  r.candidate_format = "kernelbench-cuda";
  r.problem = {"19_ReLU", "h", "activation", "/p/19_ReLU.py"};
  r.sample = 1;
  r.turn = 2;
  r.lineage = Lineage{"beam", 2, std::nullopt, {{1, 1}}, {}};
  r.usage = {100, 10, 20, 5, "reported"};
  r.cost_usd = 0.25;
  r.reply = ReplyRef{"replies/x.json", "stop", "m", 1, 0.5, 10, 3};
  r.extraction = "ok";
  r.source = SourceRef{"sources/x.cpp", "abc"};
  r.verdict = eval::Verdict::from_json({{"verdict", "correct"}, {"correct", true}, {"speedup", 1.5}});
  r.feedback = "fb";
  r.environment = Environment{"0.1", "host", "", "", "2.1", ""};
  r.evaluator = EvaluatorRef{1, 3, "NVIDIA H200", "GPU-123"};
  r.started_at = "t0";
  r.queue_wait_s = 0.5;
  r.recorded_at = "t1";
  r.error = ProviderErrorInfo{"rate_limit", "none", "slow down", "wait", 429, 3};
  r.reason = "correct";
  r.turns_used = 2;
  r.best_turn = 2;
  r.imported = ImportOrigin{"run_a", 1, 19, "f.py", "/runs/f.py", "kernelbench-run", {"cuda_kernel"}};
  Claim claim;
  claim.correct = true;
  r.claim = claim;
  r.warnings = {"odd"};
  return r;
}

bool has_type(const json& v, FieldType type) {
  if (v.is_null()) return true;  // absent
  switch (type) {
    case FieldType::string: return v.is_string();
    case FieldType::integer: return v.is_number_integer();
    case FieldType::number: return v.is_number();
    case FieldType::boolean: return v.is_boolean();
    case FieldType::object: return v.is_object();
    case FieldType::array: return v.is_array();
  }
  return false;
}

const Kind kKinds[] = {Kind::evaluation, Kind::provider_failure, Kind::harness_failure, Kind::unit_done,
                       Kind::imported};

TEST(RecordFields, EveryKeyARecordWritesIsInTheTableWithItsType) {
  for (Kind kind : kKinds) {
    const json j = full(kind).to_json();
    for (const auto& [key, value] : j.items()) {
      const auto type = field_type(kRecordFields, key);
      ASSERT_TRUE(type) << to_string(kind) << " writes '" << key << "', which record_fields.h does not name";
      EXPECT_TRUE(has_type(value, *type)) << to_string(kind) << "." << key << " = " << value.dump();
    }
    for (const auto& [key, value] : j.at("problem").items()) {
      const auto type = field_type(kProblemFields, key);
      ASSERT_TRUE(type) << "problem." << key;
      EXPECT_TRUE(has_type(value, *type)) << "problem." << key;
    }
  }
}

TEST(RecordFields, EveryKeyOfTheTableIsWrittenBySomeKind) {
  std::set<std::string> written;
  for (Kind kind : kKinds) {
    const json j = full(kind).to_json();
    for (const auto& [key, value] : j.items()) written.insert(key);
  }
  for (const auto& f : kRecordFields) EXPECT_TRUE(written.count(std::string(f.key))) << f.key;
  const json problem = full(Kind::evaluation).to_json().at("problem");
  for (const auto& f : kProblemFields) EXPECT_TRUE(problem.contains(f.key)) << f.key;
  EXPECT_TRUE(full(Kind::provider_failure).to_json().at("error").contains(error_field::kind.key));
  EXPECT_TRUE(
      has_type(full(Kind::imported).to_json().at("claim").at(claim_field::correct.key), claim_field::correct.type));
}

// A field of a type the table refuses is a line the scanner does not vouch for, and the full parser rejects it.
TEST(RecordFields, TheScannerAndTheParserRefuseAFieldOfAnotherType) {
  for (const auto& f : kRecordFields) {
    if (f.key == record_field::kind.key) continue;  // an unknown kind is refused by both for that reason
    json j = full(Kind::evaluation).to_json();
    j[std::string(f.key)] = f.type == FieldType::array ? json("not an array") : json::array({1});
    EXPECT_FALSE(summarize_line(j.dump())) << f.key;
  }
  for (const char* key : {"sample", "turn", "run_id", "cost_usd", "source", "reply", "environment", "queue_wait_s"}) {
    json j = full(Kind::evaluation).to_json();
    j[key] = json::array({1});
    EXPECT_FALSE(Record::from_json(j).ok()) << key;
  }
}

TEST(ProblemRef, WritesTheRecordsProblemObjectAndSalvagesItBack) {
  const ProblemRef p{"19_ReLU", "h", "activation", "/p/19_ReLU.py"};
  EXPECT_EQ(p.to_json(), full(Kind::evaluation).to_json().at("problem"));
  const auto back = ProblemRef::salvage(p.to_json());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), p.to_json());
  const auto odd = ProblemRef::salvage(json::parse(R"({"name": "19_ReLU", "category": 3})"));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->category, "");
  EXPECT_FALSE(ProblemRef::salvage(json::parse(R"({"file_hash": "h"})")));
  EXPECT_FALSE(ProblemRef::salvage(json::parse(R"({"name": 1})")));
}

}  // namespace
}  // namespace kf::corpus
