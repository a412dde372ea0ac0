#include <gtest/gtest.h>

#include "core/files.h"
#include "profiler/breakdown.h"
#include "profiler/corpus.h"
#include "profiler/projection.h"
#include "profiler/rules.h"

using namespace kf::profiler;

namespace {

const std::string kFixtures = KFORGE_TEST_SOURCE_DIR "/tests/profiler/fixtures";

struct Inputs {
  KernelRules rules;
  Breakdown profile;
  CorpusSummary corpus;
};

Inputs load_inputs() {
  auto rules = KernelRules::load(kFixtures + "/rules.json");
  EXPECT_TRUE(rules.ok());
  auto text = kf::read_file(kFixtures + "/profile.json");
  EXPECT_TRUE(text.ok());
  auto profile = breakdown_from_json(nlohmann::json::parse(*text), "profile.json");
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  auto corpus = read_corpus(kFixtures + "/corpus");
  EXPECT_TRUE(corpus.ok()) << corpus.error().message;
  return {std::move(rules).value(), std::move(profile).value(), std::move(corpus).value()};
}

const ClassProjection& find(const Projection& p, const std::string& name) {
  for (const auto& c : p.classes) {
    if (c.class_name == name) return c;
  }
  throw std::runtime_error("no class " + name);
}

}  // namespace

TEST(ProfilerProjection, CorpusSummaryTakesBestCorrectKernelsAndMedianBaselines) {
  const Inputs in = load_inputs();
  ASSERT_EQ(in.corpus.configs.size(), 2u);
  const auto& a = in.corpus.configs.at("A");
  EXPECT_DOUBLE_EQ(*a.at("p1_gelu").best_speedup, 2.0);
  EXPECT_DOUBLE_EQ(*a.at("p2_sum").ref_time_ms, 6.0);
  EXPECT_DOUBLE_EQ(*a.at("p3_layernorm").best_speedup, 4.0);  // not the incorrect 10x nor 20x
  EXPECT_FALSE(a.at("p4_gemm").best_speedup.has_value());
  EXPECT_FALSE(a.at("p5_loss").ref_time_ms.has_value());
}

TEST(ProfilerProjection, MatchesTheHandComputedFixture) {
  const Inputs in = load_inputs();
  const Projection a = project(in.profile, in.rules, in.corpus.configs.at("A"), "A");
  const auto& elementwise = find(a, "elementwise_reduction");
  EXPECT_EQ(elementwise.problems, 3u);
  EXPECT_EQ(elementwise.wins, 1u);
  EXPECT_NEAR(elementwise.share, 0.2, 1e-12);
  EXPECT_NEAR(elementwise.win_rate, 0.2, 1e-12);
  EXPECT_NEAR(elementwise.speedup, 2.0, 1e-12);
  EXPECT_NEAR(elementwise.saved, 0.02, 1e-12);
  const auto& norm = find(a, "norm_softmax");
  EXPECT_EQ(norm.problems, 3u);
  EXPECT_EQ(norm.wins, 2u);
  EXPECT_NEAR(norm.win_rate, 0.75, 1e-12);
  EXPECT_NEAR(norm.speedup, 3.0, 1e-12);
  EXPECT_NEAR(norm.saved, 0.05, 1e-12);
  const auto& gemm = find(a, "gemm_conv");
  EXPECT_EQ(gemm.problems, 1u);
  EXPECT_EQ(gemm.wins, 0u);
  EXPECT_DOUBLE_EQ(gemm.saved, 0.0);
  EXPECT_NEAR(a.saved, 0.07, 1e-12);
  EXPECT_NEAR(a.speedup, 1.0 / 0.93, 1e-12);
  EXPECT_NEAR(a.ceiling_core, 1.0 / 0.65, 1e-12);
  EXPECT_NEAR(a.ceiling_core_vendor, 1.0 / 0.15, 1e-9);
  EXPECT_EQ(a.unweighted_problems, 1u);

  const Projection b = project(in.profile, in.rules, in.corpus.configs.at("B"), "B");
  EXPECT_NEAR(find(b, "elementwise_reduction").saved, 0.2 * (2.0 / 3.0), 1e-12);
  EXPECT_NEAR(find(b, "norm_softmax").saved, 0.1 * (2.0 / 3.0), 1e-12);
  EXPECT_NEAR(b.saved, 0.2, 1e-12);
  EXPECT_NEAR(b.speedup, 1.25, 1e-12);
  EXPECT_FALSE(format_projection(b).empty());
}

TEST(ProfilerProjection, DamagedCorpusLinesAreErrorsWithTheirLineNumber) {
  auto bad = summarize_corpus_text("{\"kind\":\"evaluation\",\"config\":\"A\",\"problem\":{\"name\":\"p\"}}\n{oops\n",
                                   "c.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("line 2"), std::string::npos) << bad.error().message;
  auto missing = summarize_corpus_text("{\"kind\":\"evaluation\",\"problem\":{\"name\":\"p\"}}\n", "c.jsonl");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("config"), std::string::npos);
  EXPECT_FALSE(read_corpus(kFixtures + "/no-such-run").ok());
}
