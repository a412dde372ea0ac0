// reverify.json's owner: a file of the layout written before the type existed reads field by field and writes
// back key for key. Label unit.
#include <gtest/gtest.h>

#include "agent/claims/reverify_results.h"
#include "tests/support/command.h"

using namespace kf::agent;

namespace {
const char* kOldLayout = KFORGE_TEST_SOURCE_DIR "/tests/agent/fixtures/reverify_v1";
}

TEST(ReverifyDocument, ReadsTheOldLayoutAndWritesItBackKeyForKey) {
  auto loaded = ReverifyDocument::load(kOldLayout);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_TRUE(*loaded);
  const ReverifyDocument& doc = **loaded;
  EXPECT_EQ(doc.seed, 5);
  EXPECT_EQ(doc.backend, "host");
  ASSERT_EQ(doc.kernels.size(), 4u);

  const ReverifyEntry& judged = doc.kernels[0];
  EXPECT_FALSE(judged.imported);
  EXPECT_TRUE(judged.judged());
  EXPECT_EQ(judged.status, "holds");
  EXPECT_EQ(judged.speedup, 1.8);
  ASSERT_TRUE(judged.claimed_interval);
  EXPECT_DOUBLE_EQ(judged.claimed_interval->low, 1.6);
  EXPECT_EQ(judged.speedup_check, "verified");

  const ReverifyEntry& changed = doc.kernels[1];
  EXPECT_FALSE(changed.judged());
  EXPECT_EQ(changed.status, "problem_changed");
  EXPECT_FALSE(changed.claimed_speedup);

  const ReverifyEntry& rejected = doc.kernels[2];
  EXPECT_TRUE(rejected.imported);
  EXPECT_EQ(rejected.hack_class, "torch_fallback");
  EXPECT_TRUE(rejected.hardware_differs);
  ASSERT_EQ(rejected.baselines.size(), 2u);
  EXPECT_FALSE(rejected.baselines[1].measured);
  ASSERT_TRUE(rejected.claimed_reference);
  EXPECT_TRUE(rejected.claimed_reference->judged);
  EXPECT_EQ(rejected.claimed_reference->status, "rejected");
  EXPECT_EQ(rejected.claimed.model, "some-model");
  EXPECT_EQ(rejected.claimed.speedup, 3.5);

  const ReverifyEntry& missing = doc.kernels[3];
  EXPECT_FALSE(missing.judged());
  EXPECT_FALSE(missing.claimed.compiled);
  EXPECT_EQ(missing.claimed.correct, true);
  ASSERT_TRUE(doc.imported);
  EXPECT_EQ(doc.imported->by_status.at("source_missing"), 1);

  // Nothing is lost: what the type writes is the file it read, with one addition: an imported solution's
  // claim is restated as reports restate it (corpus::Claim::restated_json), baseline_ms and speedups with it.
  auto original = nlohmann::json::parse(kf::testing::slurp(std::string(kOldLayout) + "/reverify.json"));
  original["kernels"][2]["claimed"]["baseline_ms"] = nullptr;
  original["kernels"][2]["claimed"]["speedups"] = {{"eager", 3.5}};
  original["kernels"][3]["claimed"]["baseline_ms"] = nullptr;
  original["kernels"][3]["claimed"]["speedups"] = nlohmann::json::object();
  EXPECT_EQ(doc.to_json(), original) << doc.to_json().dump(2);
  EXPECT_EQ(doc.text(), original.dump(2) + "\n");
}

TEST(ReverifyDocument, TheResultsIndexFindsTheTypedEntryOfARecord) {
  auto r = ReverifyResults::load(kOldLayout);
  ASSERT_TRUE(r.ok() && *r);
  kf::corpus::Record rec;
  rec.config = "import:toy_run";
  rec.problem = {"1_ReLU_Squared", "h-1_ReLU_Squared", "", ""};
  rec.sample = 1;
  rec.turn = 0;
  const ReverifyEntry* e = (*r)->entry_of(rec);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->reason, "rejected.torch_fallback");
  EXPECT_EQ((*r)->status_of(rec), "rejected");
  EXPECT_EQ((*r)->origin(), std::string(kOldLayout) + "/reverify.json");
}
