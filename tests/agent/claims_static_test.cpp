// What kforge reads from published solutions without a GPU: their kinds (agent/claims/solution_kinds.h),
// reference drift (agent/claims/reference_drift.h), GPU names (agent/claims/hardware_name.h) and the audit
// join (agent/claims/task_quality.h).
#include <gtest/gtest.h>

#include "agent/claims/hardware_name.h"
#include "agent/claims/reference_drift.h"
#include "agent/claims/solution_kinds.h"
#include "agent/claims/task_quality.h"

namespace kf::agent {
namespace {

using Kinds = std::vector<std::string>;

TEST(SolutionKinds, KernelsOfItsOwnAndWhatElseItUses) {
  EXPECT_EQ(classify_solution("src = '''__global__ void k(float* x) {}'''\nclass ModelNew: pass\n"),
            Kinds{"cuda_kernel"});
  EXPECT_EQ(classify_solution("import triton\n@triton.jit\ndef k(x_ptr):\n    pass\n"), Kinds{"triton_kernel"});
  EXPECT_EQ(classify_solution("class ModelNew:\n    def forward(self, x):\n        return x.sum(1)\n"),
            Kinds{"no_own_kernel"});
  // Comments do not count: a commented-out kernel or torch.compile is not in the solution.
  EXPECT_EQ(classify_solution("# __global__ void k()\n# torch.compile(model)\nx = 1  # torch.compile\n"),
            Kinds{"no_own_kernel"});
  EXPECT_EQ(classify_solution("g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = f(x)\n"),
            (Kinds{"no_own_kernel", "cuda_graph"}));
  EXPECT_EQ(classify_solution("self.f = torch.compile(self.f, mode='max-autotune')\n"),
            (Kinds{"no_own_kernel", "torch_compile"}));
  EXPECT_EQ(classify_solution("src = r'''\n#include <cublas_v2.h>\n__global__ void k() {}\n'''\n"),
            (Kinds{"cuda_kernel", "vendor_library"}));
  EXPECT_EQ(classify_solution("src = '''torch::Tensor f(torch::Tensor a) { return torch::matmul(a, a); }'''\n"),
            (Kinds{"no_own_kernel", "vendor_library"}));
  // Setting cuDNN flags is no call into cuDNN.
  EXPECT_EQ(classify_solution("torch.backends.cudnn.benchmark = True\n"), Kinds{"no_own_kernel"});
}

const char* kProblem = R"(import torch
import torch.nn as nn

class Model(nn.Module):
    """
    C = diag(A) * B
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        return torch.diag(A) @ B  # slow

M = 4096
N = 4096

def get_inputs():
    A = torch.randn(N)
    B = torch.randn(N, M)
    return [A, B]

def get_init_inputs():
    return []
)";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(ReferenceDrift, CommentsDocstringsAndLayoutAreNoDrift) {
  std::string same = replaced(kProblem, "super(Model, self).__init__()", "super().__init__()");
  same = replaced(same, "    C = diag(A) * B\n", "    Multiplies by a diagonal matrix.\n");
  same = replaced(same, "  # slow", "");
  same = replaced(same, "M = 4096", "M  =  4096\n\n");
  const auto r = compare_references(kProblem, same);
  EXPECT_FALSE(r.differs) << r.summary;
  EXPECT_TRUE(r.summary.empty());
}

TEST(ReferenceDrift, TheChangedComputationAndInputsInOneLine) {
  std::string now = replaced(kProblem, "torch.diag(A) @ B", "A.unsqueeze(1) * B");
  now = replaced(now, "A = torch.randn(N)", "A = torch.rand(N)");
  const auto r = compare_references(kProblem, now);
  EXPECT_TRUE(r.differs);
  EXPECT_EQ(r.changed_lines, 4);
  EXPECT_NE(r.summary.find("forward: `return torch.diag(A) @ B` -> `return A.unsqueeze(1) * B`"), std::string::npos)
      << r.summary;
  EXPECT_NE(r.summary.find("get_inputs: `A = torch.randn(N)` -> `A = torch.rand(N)`"), std::string::npos) << r.summary;
  EXPECT_EQ(r.summary.find('\n'), std::string::npos);
}

TEST(ReferenceDrift, ChangedShapesAreNamedByTheirConstants) {
  const auto r = compare_references(kProblem, replaced(kProblem, "M = 4096", "M = 1024"));
  EXPECT_TRUE(r.differs);
  EXPECT_NE(r.summary.find("constants: M 4096 -> 1024"), std::string::npos) << r.summary;
}

TEST(HardwareName, TheModelOfAStatedGpu) {
  EXPECT_EQ(gpu_model("NVIDIA A100-SXM4-40GB"), "A100");
  EXPECT_EQ(gpu_model("RTX 3090"), "3090");
  EXPECT_EQ(gpu_model("NVIDIA GeForce RTX 3090"), "3090");
  EXPECT_EQ(gpu_model("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(gpu_model("L40S"), "L40S");
  EXPECT_EQ(gpu_model(""), "");
  EXPECT_EQ(gpu_model("cpu"), "");
  EXPECT_EQ(same_gpu("H100", "NVIDIA H100 PCIe"), true);
  EXPECT_EQ(same_gpu("H100", "NVIDIA H200"), false);
  EXPECT_EQ(same_gpu("L40", "NVIDIA L40S"), false);
  EXPECT_FALSE(same_gpu("", "NVIDIA H200"));
}

TEST(TaskQuality, AnAuditJoinedByPathElseByAUniqueName) {
  const nlohmann::json doc = {
      {"problems",
       {{{"problem", "/d/level1/12_Diag.py"},
         {"name", "12_Diag"},
         {"error", nullptr},
         {"degenerate", {{"allclose@1e-2", false}, {"kforge", true}}},
         {"fooled", {{"allclose@1e-2", true}}}},
        {{"problem", "/d/level1/19_ReLU.py"},
         {"name", "19_ReLU"},
         {"error", nullptr},
         {"degenerate", {{"kforge", false}}},
         {"fooled", {{"allclose@1e-2", true}, {"kforge", false}}}},
        {{"problem", "/d/level1/20_Clean.py"},
         {"name", "20_Clean"},
         {"error", nullptr},
         {"degenerate", {{"kforge", false}}},
         {"fooled", {{"kforge", false}}}},
        {{"problem", "/d/level1/21_Broken.py"}, {"name", "21_Broken"}, {"error", {{"code", "x"}}}}}}};
  auto a = ProblemAudit::parse(doc, "audit.json");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->size(), 3u);
  auto q = a->find("/elsewhere/12_Diag.py", "12_Diag");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kind, "degenerate");  // degenerate outranks fooled
  EXPECT_EQ(q->detail, "degenerate for kforge");
  q = a->find("/d/level1/19_ReLU.py", "other name");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kind, "fooled");
  EXPECT_EQ(q->detail, "a wrong trivial output passes allclose@1e-2");
  EXPECT_FALSE(a->find("/d/level1/20_Clean.py", "20_Clean"));
  EXPECT_FALSE(a->find("/x/21_Broken.py", "21_Broken"));
  EXPECT_FALSE(ProblemAudit::parse(nlohmann::json::array(), "x.json"));
}

}  // namespace
}  // namespace kf::agent
