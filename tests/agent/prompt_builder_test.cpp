// The one place that assembles what the model sees: system prompt, first turn and feedback, per candidate
// format, from the shipped templates.
#include <gtest/gtest.h>

#include "agent/prompt/feedback.h"
#include "agent/prompt/prompt_builder.h"

namespace kf::agent {
namespace {

PromptBuilder shipped(CandidateFormat format, bool cuda) {
  auto spec = candidate_spec(format, cuda);
  EXPECT_TRUE(spec.ok());
  auto t =
      PromptTemplates::load(nlohmann::json::object(), ".", KFORGE_TEST_SOURCE_DIR "/prompts", spec->template_layers);
  EXPECT_TRUE(t.ok()) << t.error().message;
  return PromptBuilder(*t, *spec);
}

const PromptSetting kSetting{{"NVIDIA H200", "sm_90", "13.0"}, {}, "/* the kforge.h text */"};
const ProblemPrompt kProblem{"19_ReLU", "class Model(nn.Module): ...", "int kf_forward(/* the signature */);"};

TEST(PromptBuilder, KfForwardFirstTurnShowsTheProblemItsSignatureKforgeHAndTheMachine) {
  auto b = shipped(CandidateFormat::kf_forward, true);
  auto first = b.first_turn(kProblem, kSetting);
  ASSERT_TRUE(first.ok()) << first.error().message;
  for (const std::string s : {"19_ReLU", "class Model(nn.Module): ...", "int kf_forward(/* the signature */);",
                              "/* the kforge.h text */", "NVIDIA H200 (sm_90), CUDA 13.0", "labelled `cuda`"})
    EXPECT_NE(first->find(s), std::string::npos) << s;
  auto system = b.system_prompt();
  ASSERT_TRUE(system.ok());
  EXPECT_NE(system->find("CUDA kernels"), std::string::npos);
}

TEST(PromptBuilder, KernelBenchFirstTurnLeavesOutKfForwardsSignatureAndHeader) {
  auto b = shipped(CandidateFormat::kernelbench_cuda, false);
  auto first = b.first_turn(kProblem, kSetting);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_NE(first->find("class Model(nn.Module): ..."), std::string::npos);
  EXPECT_NE(first->find("the host CPU"), std::string::npos);
  EXPECT_EQ(first->find("/* the signature */"), std::string::npos);
  EXPECT_EQ(first->find("/* the kforge.h text */"), std::string::npos);
}

TEST(PromptBuilder, FeedbackAsksForTheFormatsCodeBlock) {
  auto kb = shipped(CandidateFormat::kernelbench_cuda, true);
  auto f = kb.feedback(eval::Verdict::no_code("no_code_block", "Your answer had no code block."));
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_NE(f->find("Your answer had no code block."), std::string::npos);
  EXPECT_NE(f->find("labelled `python`"), std::string::npos);
  auto unknown = kb.feedback(eval::Verdict::from_json({{"verdict", "no_such_verdict"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("no_such_verdict"), std::string::npos);
}

}  // namespace
}  // namespace kf::agent
