#include <gtest/gtest.h>

#include "core/files.h"
#include "profiler/rules.h"

using kf::profiler::KernelRules;
using kf::profiler::Tier;

namespace {

KernelRules fixture_rules() {
  auto r = KernelRules::load(KFORGE_TEST_SOURCE_DIR "/tests/profiler/fixtures/rules.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

}  // namespace

TEST(ProfilerRules, FirstMatchingRuleWins) {
  const KernelRules rules = fixture_rules();
  // "softmax_warp" is listed before the generic "softmax" rule, so it is norm_softmax...
  EXPECT_EQ(rules.classify("void softmax_warp_forward<float>(float*)").class_name, "norm_softmax");
  // ...while other softmax kernels fall to the later rule.
  EXPECT_EQ(rules.classify("void cunn_SoftMaxForward<4>").class_name, "elementwise_reduction");
  EXPECT_EQ(rules.classify("void log_softmax_kernel").class_name, "elementwise_reduction");
  // flash_fwd precedes gemm: a flash kernel whose template mentions gemm is still attention.
  EXPECT_EQ(rules.classify("void flash_fwd_kernel<gemm_traits>").class_name, "attention");
  EXPECT_EQ(rules.classify("nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NTT").class_name, "gemm_conv");
}

TEST(ProfilerRules, TiersComeFromTheClassUnlessTheRuleOverrides) {
  const KernelRules rules = fixture_rules();
  EXPECT_EQ(rules.classify("sm90_gemm_bf16").tier, Tier::vendor);
  EXPECT_EQ(rules.classify("vectorized_elementwise_kernel").tier, Tier::core);
  const auto overridden = rules.classify("MyVendorReduce<float>");
  EXPECT_EQ(overridden.class_name, "elementwise_reduction");
  EXPECT_EQ(overridden.tier, Tier::vendor);
  EXPECT_EQ(rules.classify("[memcpy HtoD]").class_name, "copy");
  EXPECT_EQ(rules.classify("[memset]").tier, Tier::not_addressable);
}

TEST(ProfilerRules, MatchingIsCaseInsensitiveUnlessTheRuleSaysOtherwise) {
  const KernelRules rules = fixture_rules();
  EXPECT_EQ(rules.classify("EMBEDDING_bag_kernel").class_name, "embedding");
  EXPECT_EQ(rules.classify("CaseSensitive").tier, Tier::not_addressable);
  EXPECT_EQ(rules.classify("casesensitive").tier, Tier::core);  // falls to the default class
}

TEST(ProfilerRules, UnmatchedNamesFallIntoTheDefaultClass) {
  const KernelRules rules = fixture_rules();
  const auto c = rules.classify("some_custom_kernel");
  EXPECT_EQ(c.class_name, "other");
  EXPECT_EQ(c.tier, Tier::core);
}

TEST(ProfilerRules, BadRuleFilesAreRejectedWithAReason) {
  const auto expect_error = [](const std::string& text, const std::string& fragment) {
    auto r = KernelRules::parse(text, "test.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
  };
  expect_error("not json", "not a JSON object");
  expect_error(R"({"classes": [], "rules": []})", "non-empty");
  expect_error(R"({"classes": [{"name": "other", "tier": "gold"}], "rules": []})", "gold");
  expect_error(R"({"classes": [{"name": "other", "tier": "core"}], "rules": [{"match": "(", "class": "other"}]})",
               "not a valid regular expression");
  expect_error(R"({"classes": [{"name": "other", "tier": "core"}], "rules": [{"match": "x", "class": "nope"}]})",
               "not defined");
  expect_error(R"({"default_class": "misc", "classes": [{"name": "other", "tier": "core"}], "rules": []})",
               "default_class");
}

TEST(ProfilerRules, ShippedRuleFileClassifiesCommonKernels) {
  auto loaded = KernelRules::load(KFORGE_TEST_SOURCE_DIR "/configs/kernel-classes.json");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const KernelRules& rules = *loaded;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"},
      {"[memcpy HtoD]", "copy"},
      {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
       "cutlass::bfloat16_t>, false>(pytorch_flash::Flash_fwd_params)",
       "attention"},
      {"nvjet_tst_192x192_64x4_1x2_h_bz_coopB_TNT", "gemm_conv"},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
       "5x_cublas",
       "gemm_conv"},
      {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)", "gemm_conv"},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x32x64_stage5", "gemm_conv"},
      {"void at::native::(anonymous namespace)::EmbeddingBag_updateOutputKernel_sum_mean<float, long>(long const*, "
       "long const*, float const*, float*, long*, long, long, long, long, long, float const*, long)",
       "embedding"},
      {"void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>()",
       "index_sort"},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>()", "norm_softmax"},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, Epilogue>()",
       "norm_softmax"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl, "
       "std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl, std::array<char*, 2ul>)",
       "elementwise_reduction"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>()",
       "elementwise_reduction"},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>()",
       "elementwise_reduction"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
       "::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
       "std::array<char*, 2ul> >()",
       "copy"},
      {"my_handwritten_kernel(float*)", "other"},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(rules.classify(name).class_name, expected) << name;
}
