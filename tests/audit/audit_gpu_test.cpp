// Honest CUDA solutions of DLRM-Bench problems 1, 5, 8 and 9 pass `kforge eval` on the GPU.
// Skipped when no GPU is present.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "test_process.h"

namespace {

using namespace kf::audit_test;

struct Solution {
  const char* problem;
  const char* candidate;
};
// Names the case in gtest's output instead of dumping the struct's bytes.
void PrintTo(const Solution& s, std::ostream* os) { *os << s.candidate; }

class DlrmCudaSolution : public ::testing::TestWithParam<Solution> {};

TEST_P(DlrmCudaSolution, IsJudgedCorrect) {
  if (!gpu_present()) GTEST_SKIP() << "no GPU (nvidia-smi -L lists none)";
  ASSERT_FALSE(python().empty()) << kNoTorchAdvice;
  const auto command = quote(kforge()) + " eval --backend cuda --json --python " + quote(python()) + " --problem " +
                       quote(source(GetParam().problem)) + " --candidate " + quote(source(GetParam().candidate)) +
                       " 2>/dev/null";
  const auto r = run_command(command);
  ASSERT_FALSE(r.out.empty()) << command;
  const auto verdict = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(verdict.is_discarded()) << r.out;
  EXPECT_EQ(verdict.value("verdict", ""), "correct") << verdict.dump(2);
  EXPECT_EQ(r.exit_code, 0) << verdict.dump(2);
  // The figures the lead pastes into docs/dlrm-bench.md.
  std::printf("DLRMFIG %s: verdict %s time_ms %s ref_time_ms %s speedup %s\n", GetParam().problem,
              verdict.value("verdict", "").c_str(), verdict.value("time_ms", nlohmann::json()).dump().c_str(),
              verdict.value("ref_time_ms", nlohmann::json()).dump().c_str(),
              verdict.value("speedup", nlohmann::json()).dump().c_str());
}

INSTANTIATE_TEST_SUITE_P(DlrmBench, DlrmCudaSolution,
                         ::testing::Values(Solution{"problems/dlrm/1_EmbeddingBag_sum.py",
                                                    "tests/audit/dlrm_cuda/1_EmbeddingBag_sum.cu"},
                                           Solution{"problems/dlrm/5_DLRM_dot_interaction.py",
                                                    "tests/audit/dlrm_cuda/5_DLRM_dot_interaction.cu"},
                                           Solution{"problems/dlrm/8_Multitask_BCE_with_logits.py",
                                                    "tests/audit/dlrm_cuda/8_Multitask_BCE_with_logits.cu"},
                                           Solution{"problems/dlrm/9_Jagged_to_padded_dense.py",
                                                    "tests/audit/dlrm_cuda/9_Jagged_to_padded_dense.cu"},
                                           Solution{"problems/dlrm/13_EmbeddingBag_mean_random_lengths.py",
                                                    "tests/audit/dlrm_cuda/13_EmbeddingBag_mean_random_lengths.cu"}),
                         [](const ::testing::TestParamInfo<Solution>& param_info) {
                           const std::string name = param_info.param.problem;
                           const auto slash = name.rfind('/');
                           std::string stem = name.substr(slash + 1, name.size() - slash - 4);
                           for (char& c : stem) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return "P" + stem;
                         });

}  // namespace
