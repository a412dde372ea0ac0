#include <gtest/gtest.h>

#include "agent/campaign/category.h"

namespace kf::agent {
namespace {

TEST(Category, KernelBenchLevel1Names) {
  const std::pair<const char*, const char*> cases[] = {
      {"1_Square_matrix_multiplication_.py", "matmul"},
      {"4_Matrix_vector_multiplication_.py", "matmul"},
      {"5_Matrix_scalar_multiplication.py", "matmul"},
      {"19_ReLU.py", "activation"},
      {"23_Softmax.py", "activation"},
      {"88_MinGPTNewGelu.py", "activation"},
      {"33_BatchNorm.py", "norm"},
      {"37_FrobeniusNorm_.py", "norm"},
      {"40_LayerNorm.py", "norm"},
      {"42_Max_Pooling_2D.py", "pooling"},
      {"47_Sum_reduction_over_a_dimension.py", "reduction"},
      {"49_Max_reduction_over_a_dimension.py", "reduction"},
      {"51_Argmax_over_a_dimension.py", "reduction"},
      {"50_conv_standard_2D__square_input__square_kernel.py", "conv"},
      {"82_conv_depthwise_2D_square_input_square_kernel.py", "conv"},
      {"57_conv_transposed_2D__square_input__square_kernel.py", "conv-transposed"},
      {"89_cumsum.py", "scan"},
      {"93_masked_cumsum.py", "scan"},
      {"95_CrossEntropyLoss.py", "loss"},
      {"100_HingeLoss.py", "loss"},
      {"97_ScaledDotProductAttention.py", "attention"},
      {"dlrm_embedding_bag_sum.py", "recommender"},
  };
  for (const auto& [name, want] : cases) EXPECT_EQ(categorize_problem(name, ""), want) << name;
}

TEST(Category, ModuleLevelOverrideWins) {
  EXPECT_EQ(categorize_problem("19_ReLU.py", "import torch\nKFORGE_CATEGORY = \"recommender\"\n"), "recommender");
  EXPECT_EQ(categorize_problem("x.py", "KFORGE_CATEGORY='scan'\n"), "scan");
}

TEST(Category, FallsBackToSourceThenOther) {
  EXPECT_EQ(categorize_problem("my_problem.py", "return torch.nn.functional.conv_transpose2d(x, w)"),
            "conv-transposed");
  EXPECT_EQ(categorize_problem("my_problem.py", "return x.cumsum(1)"), "scan");
  EXPECT_EQ(categorize_problem("my_problem.py", "return x + 1"), "other");
}

}  // namespace
}  // namespace kf::agent
