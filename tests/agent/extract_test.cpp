#include <gtest/gtest.h>

#include "agent/extract.h"

namespace kf::agent {
namespace {

const char* kKernel = "#include \"kforge.h\"\nextern \"C\" int kf_forward(const kf_tensor* in, int32_t n,\n"
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
  EXPECT_TRUE(defines_kf_forward("int kf_forward(const kf_tensor* i, int32_t n, kf_tensor* o, int32_t m, void* s)\n{ }"));
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

}  // namespace
}  // namespace kf::agent
