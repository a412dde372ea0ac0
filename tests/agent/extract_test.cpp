#include <gtest/gtest.h>

#include "agent/prompt/extract.h"

namespace kf::agent {
namespace {

const char* kKernel =
    "#include \"kforge.h\"\nextern \"C\" int kf_forward(const kf_tensor* in, int32_t n,\n"
    "    kf_tensor* out, int32_t m, void* s) {\n  return 0;\n}\n";

TEST(Extract, LabelledCudaBlock) {
  auto ex = extract_source(std::string("Here:\n```cuda\n") + kKernel + "```\nDone.");
  ASSERT_TRUE(ex.source);
  EXPECT_EQ(*ex.source, kKernel);
}

TEST(Extract, EachAcceptedLabelAndUnlabelled) {
  for (std::string label : {"cu", "cpp", "c++", "C", "CUDA", "", "cpp title=\"k.cpp\""}) {
    auto ex = extract_source("```" + label + "\n" + kKernel + "```\n");
    EXPECT_TRUE(ex.source) << "label " << label;
  }
}

TEST(Extract, TildeFencesAndCrlf) {
  std::string crlf;
  for (char c : std::string(kKernel)) crlf += (c == '\n') ? std::string("\r\n") : std::string(1, c);
  auto ex = extract_source("~~~cuda\r\n" + crlf + "~~~\r\n");
  ASSERT_TRUE(ex.source);
  EXPECT_EQ(*ex.source, kKernel);
}

TEST(Extract, PythonBlocksAreIgnored) {
  auto ex = extract_source("```python\nprint(1)\n```\n");
  EXPECT_FALSE(ex.source);
  EXPECT_EQ(ex.failure, "no_code_block");
}

TEST(Extract, NoBlockAtAll) {
  auto ex = extract_source("I would write a kernel that does kf_forward(...) { }");
  EXPECT_FALSE(ex.source);
  EXPECT_EQ(ex.failure, "no_code_block");
  EXPECT_FALSE(ex.message.empty());
}

TEST(Extract, BlockWithoutKfForward) {
  auto ex = extract_source("```cuda\n__global__ void k() {}\n```\n");
  EXPECT_FALSE(ex.source);
  EXPECT_EQ(ex.failure, "no_kf_forward");
}

TEST(Extract, PicksTheBlockThatDefinesKfForward) {
  std::string answer = std::string("```cuda\n__device__ float helper();\n```\n") + "then\n```cpp\n" + kKernel +
                       "```\n```\nnvcc -O3 k.cu\n```\n";
  auto ex = extract_source(answer);
  ASSERT_TRUE(ex.source);
  EXPECT_EQ(*ex.source, kKernel);
  EXPECT_EQ(ex.blocks_seen, 3);
}

TEST(Extract, ADeclarationOrCallIsNotADefinition) {
  EXPECT_FALSE(defines_kf_forward("int kf_forward(const kf_tensor*, int32_t, kf_tensor*, int32_t, void*);"));
  EXPECT_FALSE(defines_kf_forward("int main() { return kf_forward(0, 0, 0, 0, 0); }"));
  EXPECT_FALSE(defines_kf_forward("int my_kf_forward(int a) { return a; }"));
  EXPECT_TRUE(
      defines_kf_forward("int kf_forward(const kf_tensor* i, int32_t n, kf_tensor* o, int32_t m, void* s)\n{ }"));
}

TEST(Extract, LongerFenceContainsShorterOne) {
  std::string answer = std::string("````cuda\n") + kKernel + "// ```\n````\n";
  auto ex = extract_source(answer);
  ASSERT_TRUE(ex.source);
  EXPECT_EQ(*ex.source, std::string(kKernel) + "// ```\n");
}

TEST(Extract, TruncatedAnswerStillYieldsTheBlock) {
  auto blocks = fenced_blocks(std::string("```cuda\n") + kKernel);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].terminated);
}

// ---- KernelBench's format: a python block defining ModelNew ----

const std::string kSolution = R"(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = r"""
torch::Tensor relu_fwd(torch::Tensor x) {
    auto y = torch::empty_like(x);
    return y;
}
"""
ext = load_inline(name="relu_ext", cpp_sources=cpp_source, functions=["relu_fwd"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_fwd(x)
)";

TEST(ExtractModelNew, ReasoningInProseBeforeTheBlock) {
  const std::string answer =
      "The reference applies ReLU elementwise, so the kernel is memory bound. I will write one pass over the "
      "data, reading each element once.\n\nHere is the complete solution:\n\n```python\n" +
      kSolution + "```\n\nThe extension is built once when the module is imported.";
  auto ex = extract_model_new(answer);
  ASSERT_TRUE(ex.source) << ex.message;
  EXPECT_EQ(*ex.source, kSolution);
  EXPECT_EQ(ex.blocks_seen, 1);
}

TEST(ExtractModelNew, EachAcceptedLabelAndUnlabelled) {
  for (std::string label : {"python", "py", "python3", "Python", "", "python title=\"solution.py\""}) {
    auto ex = extract_model_new("```" + label + "\n" + kSolution + "```\n");
    EXPECT_TRUE(ex.source) << "label " << label;
  }
}

TEST(ExtractModelNew, TakesTheLastBlockThatDefinesModelNew) {
  const std::string draft = "class ModelNew(nn.Module):\n    pass  # first draft\n";
  const std::string answer = "A first idea:\n```python\n" + draft +
                             "```\nThe CUDA part on its own:\n```cuda\n"
                             "__global__ void k(float* x) {}\n```\nA usage example:\n```python\nmodel = ModelNew()\n"
                             "print(model(torch.randn(4)))\n```\nThe final version:\n```python\n" +
                             kSolution + "```\nAnd to run it:\n```\npython solution.py\n```\n";
  auto ex = extract_model_new(answer);
  ASSERT_TRUE(ex.source) << ex.message;
  EXPECT_EQ(*ex.source, kSolution);
  EXPECT_EQ(ex.blocks_seen, 4);  // the cuda block is not a candidate
}

TEST(ExtractModelNew, ATruncatedBlockIsTakenOnlyWithoutACompleteOne) {
  // The reply was cut inside its only block: the file is submitted as it is (the evaluator reports
  // what is missing), as for kf_forward.
  const std::string cut = kSolution.substr(0, kSolution.find("    def forward") + 10);  // ends "    def fo"
  auto only = extract_model_new("Solution:\n```python\n" + cut);
  ASSERT_TRUE(only.source);
  EXPECT_EQ(*only.source, cut + "\n");
  // A complete block followed by a cut second attempt: the complete one.
  auto both = extract_model_new("```python\n" + kSolution + "```\nA faster variant:\n```python\n" + cut);
  ASSERT_TRUE(both.source);
  EXPECT_EQ(*both.source, kSolution);
}

TEST(ExtractModelNew, ModelNewOnlyInProseIsNoModelNew) {
  const std::string answer =
      "I will define a class ModelNew(nn.Module) whose forward calls the kernel below.\n\n```python\n"
      "import torch\n\ndef relu(x):\n    return x.clamp_min(0)\n```\n";
  auto ex = extract_model_new(answer);
  EXPECT_FALSE(ex.source);
  EXPECT_EQ(ex.failure, "no_model_new");
  EXPECT_NE(ex.message.find("does not define class ModelNew"), std::string::npos) << ex.message;
}

TEST(ExtractModelNew, SeveralBlocksWithoutModelNewAreCounted) {
  auto ex = extract_model_new("```python\nimport torch\n```\n```py\nx = 1\n```\n");
  EXPECT_EQ(ex.failure, "no_model_new");
  EXPECT_NE(ex.message.find("None of your 2 python code blocks"), std::string::npos) << ex.message;
}

TEST(ExtractModelNew, OnlyAKfForwardStyleBlockIsNoCodeBlockNamingItsLabel) {
  auto ex = extract_model_new("```cpp\nextern \"C\" int kf_forward() { return 0; }\n```\n");
  EXPECT_FALSE(ex.source);
  EXPECT_EQ(ex.failure, "no_code_block");
  EXPECT_NE(ex.message.find("labelled cpp"), std::string::npos) << ex.message;
  EXPECT_EQ(extract_model_new("No code, just an explanation of ModelNew.").failure, "no_code_block");
}

TEST(ExtractModelNew, ADefinitionNotAUse) {
  EXPECT_TRUE(defines_model_new("class ModelNew(nn.Module):\n    pass\n"));
  EXPECT_TRUE(defines_model_new("class  ModelNew :\n    pass\n"));
  EXPECT_TRUE(defines_model_new("if True:\n    class ModelNew(torch.nn.Module):\n        pass\n"));
  EXPECT_FALSE(defines_model_new("model = ModelNew()\n"));
  EXPECT_FALSE(defines_model_new("# class ModelNew(nn.Module) comes later\n"));
  EXPECT_FALSE(defines_model_new("class ModelNewer(nn.Module):\n    pass\n"));
  EXPECT_FALSE(defines_model_new("class Model(nn.Module):\n    pass\n"));
  EXPECT_FALSE(defines_model_new("classModelNew(nn.Module):\n"));
}

TEST(ExtractCandidate, TheFormatPicksTheExtraction) {
  const std::string kb = "```python\n" + kSolution + "```\n";
  const std::string kf = std::string("```cuda\n") + kKernel + "```\n";
  EXPECT_TRUE(extract_candidate(providers::CandidateFormat::kf_forward, kf).source);
  EXPECT_EQ(extract_candidate(providers::CandidateFormat::kf_forward, kb).failure, "no_code_block");
  EXPECT_TRUE(extract_candidate(providers::CandidateFormat::kernelbench_cuda, kb).source);
  EXPECT_TRUE(extract_candidate(providers::CandidateFormat::kernelbench_triton, kb).source);
  EXPECT_EQ(extract_candidate(providers::CandidateFormat::kernelbench_cuda, kf).failure, "no_code_block");
}

}  // namespace
}  // namespace kf::agent
