// A record's lineage: its JSON both ways through the record's owner, absent for refine records, and damaged
// lineages named by field.
#include <gtest/gtest.h>

#include "corpus/record.h"

namespace kf::corpus {
namespace {

Record child() {
  Record r;
  r.kind = Kind::evaluation;
  r.config = "c";
  r.problem = {"19_ReLU", "h", "activation", "/p/19_ReLU.py"};
  r.sample = 0;
  r.turn = 7;
  r.lineage = Lineage{"evolve", 3, 1, {{0, 4}}, {{0, 2}, {0, 5}}};
  return r;
}

TEST(Lineage, RoundTripsThroughTheRecord) {
  const Record r = child();
  const auto j = r.to_json();
  ASSERT_TRUE(j.contains("lineage"));
  EXPECT_EQ(j["lineage"]["strategy"], "evolve");
  EXPECT_EQ(j["lineage"]["parents"], nlohmann::json::parse(R"([{"sample":0,"turn":4}])"));
  auto back = Record::from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->lineage);
  EXPECT_EQ(*back->lineage, *r.lineage);
  EXPECT_EQ(back->to_json(), j);
}

TEST(Lineage, FirstTurnsHaveNoParentsAndBeamNoIsland) {
  const Lineage first{"beam", 1, std::nullopt, {}, {}};
  const auto j = first.to_json();
  EXPECT_TRUE(j["island"].is_null());
  EXPECT_TRUE(j["parents"].empty());
  EXPECT_FALSE(j.contains("inspirations"));
  auto back = Lineage::from_json(j);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, first);
}

TEST(Lineage, RefineRecordsCarryNone) {
  Record r = child();
  r.lineage.reset();
  EXPECT_FALSE(r.to_json().contains("lineage"));
  auto back = Record::from_json(r.to_json());
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->lineage);
}

TEST(Lineage, DamagedLineageNamesTheField) {
  auto j = child().to_json();
  j["lineage"]["parents"][0]["turn"] = "four";
  auto bad = Record::from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("lineage.parents[0]"), std::string::npos) << bad.error().message;
  j = child().to_json();
  j["lineage"]["round"] = nullptr;
  bad = Record::from_json(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("lineage.round"), std::string::npos);
  j = child().to_json();
  j["lineage"] = "evolve";
  EXPECT_FALSE(Record::from_json(j).ok());
}

}  // namespace
}  // namespace kf::corpus
