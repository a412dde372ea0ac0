// What candidate_format means per backend, and the shipped templates of every (format, backend).
#include <gtest/gtest.h>

#include "agent/prompt/candidate_format.h"
#include "agent/prompt/feedback.h"
#include "agent/prompt/prompt_templates.h"

namespace kf::agent {
namespace {

const std::string kPrompts = KFORGE_TEST_SOURCE_DIR "/prompts";

TEST(CandidateFormat, SpecPerBackend) {
  auto kf_cuda = candidate_spec(CandidateFormat::kf_forward, true);
  ASSERT_TRUE(kf_cuda.ok());
  EXPECT_EQ(kf_cuda->source_extension, ".cu");
  EXPECT_EQ(kf_cuda->code_label, "cuda");
  auto kf_host = candidate_spec(CandidateFormat::kf_forward, false);
  ASSERT_TRUE(kf_host.ok());
  EXPECT_EQ(kf_host->source_extension, ".cpp");
  for (bool cuda : {true, false}) {
    auto kb = candidate_spec(CandidateFormat::kernelbench_cuda, cuda);
    ASSERT_TRUE(kb.ok());
    EXPECT_EQ(kb->source_extension, ".py");  // the evaluator's kernelbench kind
    EXPECT_EQ(kb->code_label, "python");
    EXPECT_EQ(kb->language, cuda ? "CUDA" : "C++");
  }
  auto triton = candidate_spec(CandidateFormat::kernelbench_triton, true);
  ASSERT_TRUE(triton.ok());
  EXPECT_EQ(triton->language, "Triton");
}

TEST(CandidateFormat, TritonOnTheHostBackendSaysWhatToUseInstead) {
  auto r = candidate_spec(CandidateFormat::kernelbench_triton, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cuda backend"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("kernelbench-cuda"), std::string::npos) << r.error().message;
}

// Every shipped template set renders with the variables the campaign gives it, and asks for its format.
TEST(CandidateFormat, ShippedTemplatesOfEveryFormatRender) {
  struct Case {
    CandidateFormat format;
    bool cuda;
    std::vector<std::string> first_turn_says;
  };
  const std::vector<Case> cases = {
      {CandidateFormat::kf_forward, true, {"kf_forward", "```c\n// sig", "labelled `cuda`", "NVIDIA H200 (sm_90)"}},
      {CandidateFormat::kf_forward, false, {"kf_forward", "labelled `cpp`", "the host CPU"}},
      {CandidateFormat::kernelbench_cuda,
       true,
       {"class ModelNew(nn.Module)", "cuda_sources", "__global__", "labelled `python`", "NVIDIA H200 (sm_90)",
        "Reference model 19_ReLU:", "keep fp32 accuracy"}},
      {CandidateFormat::kernelbench_cuda,
       false,
       {"class ModelNew(nn.Module)", "no\n  `cuda_sources`", "load_inline(name=\"example_add\", cpp_sources=cpp_source",
        "labelled `python`", "the host CPU", "Reference model 19_ReLU:"}},
      {CandidateFormat::kernelbench_triton,
       true,
       {"class ModelNew(nn.Module)", "@triton.jit", "kernel[grid](...)", "labelled `python`",
        "Reference model 19_ReLU:"}},
  };
  for (const auto& c : cases) {
    const std::string what = to_string(c.format) + (c.cuda ? " on cuda" : " on host");
    auto spec = candidate_spec(c.format, c.cuda);
    ASSERT_TRUE(spec.ok()) << what;
    auto t = PromptTemplates::load(nlohmann::json::object(), ".", kPrompts, spec->template_layers);
    ASSERT_TRUE(t.ok()) << what << ": " << t.error().message;
    TemplateVars vars = format_vars(*spec, {"NVIDIA H200", "sm_90", "13.0"}, {});
    vars["problem_name"] = "19_ReLU";
    vars["problem_source"] = "class Model(nn.Module): ...";
    if (c.format == CandidateFormat::kf_forward) {
      vars["signature"] = "// sig";
      vars["kforge_h"] = "/* header */";
    }
    auto first = t->render("first_turn", vars);
    ASSERT_TRUE(first.ok()) << what << ": " << first.error().message;
    EXPECT_NE(first->find("class Model(nn.Module): ..."), std::string::npos) << what;
    for (const auto& s : c.first_turn_says) EXPECT_NE(first->find(s), std::string::npos) << what << ": " << s;
    if (c.format != CandidateFormat::kf_forward) {
      EXPECT_EQ(first->find("kf_forward"), std::string::npos) << what;
    }
    auto system = t->render("system", {{"language", spec->language}});
    ASSERT_TRUE(system.ok()) << what;
    EXPECT_NE(system->find(spec->language + " kernels"), std::string::npos) << what;
    for (const auto& [name, v] : std::vector<std::pair<std::string, TemplateVars>>{
             {"compile_error", {{"compiler_errors", "e"}}},
             {"incorrect", {{"failed_check", "c"}, {"details", "d"}}},
             {"runtime_error", {{"error", "e"}}},
             {"timeout", {{"error", "e"}}},
             {"rejected", {{"reason", "r"}}},
             {"correct", correct_feedback_vars(
                             eval::Verdict::from_json({{"verdict", "correct"}, {"time_ms", 1.0}, {"speedup", 2.0}}))},
             {"no_code", {{"reason", "r"}, {"code_label", spec->code_label}}}}) {
      auto r = t->render(name, v);
      ASSERT_TRUE(r.ok()) << what << ": " << name << ": " << r.error().message;
      const bool kb = c.format != CandidateFormat::kf_forward;
      EXPECT_EQ(r->find("python code block") != std::string::npos || r->find("labelled `python`") != std::string::npos,
                kb)
          << what << ": " << name << ": " << *r;
    }
  }
}

TEST(CandidateFormat, TheFormatsTemplatesDifferSoResumeSeesAChange) {
  auto kf = PromptTemplates::load(nlohmann::json::object(), ".", kPrompts, {""});
  auto kb = PromptTemplates::load(nlohmann::json::object(), ".", kPrompts, {"kernelbench/host", "kernelbench"});
  ASSERT_TRUE(kf.ok() && kb.ok());
  EXPECT_NE(kf->fingerprint(), kb->fingerprint());
}

TEST(CandidateFormat, PrecisionFollowsTheAllowance) {
  auto spec = candidate_spec(CandidateFormat::kernelbench_cuda, true);
  ASSERT_TRUE(spec.ok());
  EXPECT_NE(format_vars(*spec, {}, {false, true}).at("precision").find("accepted"), std::string::npos);
  EXPECT_NE(format_vars(*spec, {}, {true, false})
                .at("allowed_libraries")
                .find("cuBLAS, cuDNN and other vendor "
                      "libraries are allowed"),
            std::string::npos);
}

}  // namespace
}  // namespace kf::agent
