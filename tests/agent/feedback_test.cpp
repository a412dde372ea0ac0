// What the feedback of a correct kernel says about what limits it: the roofline's achieved throughput and,
// when the trusted side profiled the kernel, Nsight Compute's figures (verdict/kernel_profile.h).
#include <gtest/gtest.h>

#include "agent/prompt/feedback.h"
#include "agent/prompt/prompt_templates.h"
#include "verdict/kernel_profile.h"

namespace kf::agent {
namespace {

eval::Verdict correct_with_peak() {
  nlohmann::json peak = {{"time_ms", 2.0},         {"memory_ms", 0.5},         {"compute_ms", 0.1},
                         {"bound_ms", 0.5},        {"bound_by", "memory"},     {"fraction", 0.25},
                         {"achieved_gbps", 812.4}, {"achieved_tflops", 0.2043}};
  return eval::Verdict::from_json({{"verdict", "correct"},
                                   {"correct", true},
                                   {"time_ms", 2.0},
                                   {"ref_time_ms", 3.0},
                                   {"speedup", 1.5},
                                   {"peak", peak}});
}

eval::KernelProfile profile() {
  eval::KernelProfile p;
  p.kernel = "relu_kernel(float const*, float*, long)";
  p.launches = 1;
  p.memory_throughput_pct = 78.25;
  p.compute_throughput_pct = 12.5;
  p.achieved_occupancy_pct = 61.04;
  p.top_stalls = {{"long_scoreboard", 0.62}, {"wait", 0.2}};
  return p;
}

TEST(Feedback, TheRooflineSaysWhatTheKernelAchieves) {
  auto vars = correct_feedback_vars(correct_with_peak());
  EXPECT_EQ(vars.at("achieved"), "812 GB/s and 0.204 TFLOP/s achieved");
  EXPECT_EQ(vars.at("roofline")
                .rfind("Your kernel reaches 25% of the memory bound (812 GB/s and 0.204 TFLOP/s "
                       "achieved) (the bound:",
                       0),
            0u)
      << vars.at("roofline");
  EXPECT_EQ(vars.at("profile"), "");  // not profiled: nothing, not even a line
}

TEST(Feedback, NsightComputeFiguresFollowOnALineOfTheirOwn) {
  auto v = correct_with_peak();
  v.checks.profile = profile();
  auto vars = correct_feedback_vars(v);
  EXPECT_EQ(vars.at("profile"),
            "\nNsight Compute on your kernel relu_kernel(float const*, float*, long): memory throughput 78.2% of "
            "peak, compute (SM) throughput 12.5% of peak, achieved occupancy 61%; warps stalled most on "
            "long_scoreboard (62% of stalls), wait (20% of stalls).");
  auto t = PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts");
  ASSERT_TRUE(t.ok());
  auto text = render_feedback(*t, v, "cuda");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text->find("achieved) (the bound"), std::string::npos) << *text;
  EXPECT_NE(text->find(".\nNsight Compute on your kernel relu_kernel"), std::string::npos) << *text;
  // Without a profile the shipped template reads as before: the roofline line, a blank line, the request.
  auto plain = render_feedback(*t, correct_with_peak(), "cuda");
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(plain->find("longer).\n\nMake it faster"), std::string::npos) << *plain;
}

TEST(Feedback, ADamagedRecordedProfileIsLeftOutNeverAnError) {
  auto v = correct_with_peak();
  // Read back from a record: a profile without one usable figure is kept as it was, not as a profile.
  v.checks = eval::Checks::from_json({{"profile", {{"memory_throughput_pct", "lots"}, {"top_stalls", "x"}}}});
  EXPECT_FALSE(v.checks.profile);
  EXPECT_EQ(v.checks.to_json()["profile"]["memory_throughput_pct"], "lots");
  EXPECT_EQ(correct_feedback_vars(v).at("profile"), "");
  v.checks = eval::Checks::from_json(nlohmann::json::array());  // checks of the wrong type
  EXPECT_EQ(correct_feedback_vars(v).at("profile"), "");
}

}  // namespace
}  // namespace kf::agent
