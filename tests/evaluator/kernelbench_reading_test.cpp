// The static check reads a solution the way KernelBench's rules do (issue 40): its own code is followed wherever
// Python lets it be found without running it, partial replacement is accepted and recorded, C++ comments are no
// code, early returns and exception handlers are modelled, and harmless code is no hidden call. A kernel that
// never runs, or runs only off the measured path, is still refused. One minimal solution per rule.
#include <gtest/gtest.h>

#include "evaluator/kernelbench/static_check.h"
#include "tests/evaluator/static_check_fixture.h"

using namespace kf::eval;
using namespace kf::eval::kernelbench;
using kf::eval::kernelbench::testing::StaticCheck;

namespace {

// What the evaluator decides from the text alone: judge_static, then the torch-fallback rule.
std::vector<std::string> judged(const nlohmann::json& f, const ReferenceWork& ref, const PythonEnv& env,
                                Coverage* coverage = nullptr) {
  std::vector<std::string> out;
  auto r = judge_static(f, Backend::host, env);
  if (r.empty()) r = judge_torch_fallback(f, ref, coverage);
  for (const auto& x : r) out.push_back(x.code);
  return out;
}

const std::vector<std::string> kAccepted;
const std::vector<std::string> kFallback = {"rejected.torch_fallback"};

// A ReLU problem, and one whose reference is a convolution followed by arithmetic.
const char* const kReluProblem = R"(import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)
)";
const char* const kConvTailProblem = R"(import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bias = nn.Parameter(torch.zeros(8, 1, 1))
    def forward(self, x):
        x = self.conv(x)
        x = x * 2.0 + self.bias
        return torch.relu(x)
)";

TEST_F(StaticCheck, KernelThroughAutogradFunctionApply) {
  auto f = solution(R"(
class ReluFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ext.relu_k(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x > 0)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = ReluFn.apply

    def forward(self, x):
        return self.op(ReluFn.apply(x))
)");
  EXPECT_TRUE(f["kernel_every_path"].get<bool>()) << f.dump();
  EXPECT_TRUE(f["attribution"]["trusted"].get<bool>()) << f.dump();
  EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted);
}

TEST_F(StaticCheck, OwnModulesInContainersHelpersAndLoops) {
  auto f = solution(R"(
class Block(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)

class Stage(nn.Module):
    def forward(self, x):
        return ext.relu_k(x)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(Stage(), Stage())
        self.blocks = nn.ModuleList()
        for _ in range(3):
            self.blocks.append(Block(ext.relu_k))
        self.stage = self._make_layer(Stage, 2)
        for i in range(2):
            setattr(self, f"layer_{i}", Stage())

    def _make_layer(self, block, n):
        layers = []
        for _ in range(n):
            layers.append(block())
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.seq(x)
        for block in self.blocks:
            x = block(x)
        x = self.stage(x)
        for i in range(2):
            x = getattr(self, f"layer_{i}")(x)
        return x
)");
  EXPECT_TRUE(f["hidden_calls"].empty()) << f.dump();
  EXPECT_TRUE(f["kernel_every_path"].get<bool>()) << f.dump();
  EXPECT_TRUE(f["attribution"]["trusted"].get<bool>()) << f.dump();
  EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted);
}

TEST_F(StaticCheck, ExtensionStoredByAMethodOrPassedToSubmodulesAndClassesInsideInit) {
  auto f = solution(R"(
class Wrapper(nn.Module):
    def __init__(self, kernels):
        super().__init__()
        self.kernels = kernels

    def forward(self, x):
        return self.kernels.relu_k(x)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ops = self._build()
        self.fn = self._pick()

        class Inner(nn.Module):
            def forward(self, x):
                return ext.relu_k(x)

        self.inner = Inner()
        self.wrapped = Wrapper(self.ops)

    def _build(self):
        from torch.utils.cpp_extension import load_inline as build
        return build(name="ext2", cpp_sources="torch::Tensor relu_k(torch::Tensor x);", functions=["relu_k"])

    def _pick(self):
        return ext.relu_k

    def forward(self, x):
        return self.wrapped(self.inner(self.fn(self.ops.relu_k(x))))
)");
  EXPECT_EQ(f["kernel_calls"].size(), 4u) << f.dump();
  EXPECT_TRUE(f["attribution"]["trusted"].get<bool>()) << f.dump();
  EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted);
}

// KernelBench allows replacing some operators and keeping others: a cuDNN convolution with a fused tail of the
// solution's, or fused kernels beside one torch layer. Recorded as partial, not refused.
TEST_F(StaticCheck, PartialReplacementAcceptedAndRecorded) {
  const auto ref = reference(kConvTailProblem);
  EXPECT_EQ(ref.units, (std::map<std::string, int64_t>{{"arithmetic", 2}, {"conv2d", 1}, {"relu", 1}}));
  auto cudnn_conv_fused_tail = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bias = nn.Parameter(torch.zeros(8, 1, 1))

    def forward(self, x):
        return ext.relu_k(self.conv(x))
)");
  Coverage coverage;
  EXPECT_EQ(judged(cudnn_conv_fused_tail, ref, *env_, &coverage), kAccepted) << cudnn_conv_fused_tail.dump();
  EXPECT_EQ(coverage.torch, (std::vector<std::string>{"conv2d"}));
  EXPECT_EQ(coverage.kernels, (std::vector<std::string>{"arithmetic", "relu"}));
  EXPECT_TRUE(coverage.partial());
  // The torch layer does the reference's operators, the kernel its arithmetic (a ReLU kept in torch too).
  auto tail_arithmetic = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return torch.relu(ext.relu_k(self.conv(x)))
)");
  EXPECT_EQ(judged(tail_arithmetic, ref, *env_, &coverage), kAccepted) << tail_arithmetic.dump();
  EXPECT_EQ(coverage.kernels, (std::vector<std::string>{"arithmetic"}));
  // One of the reference's two convolutions in torch, the other the kernel's (a ShuffleNet unit's shortcut).
  auto one_of_two = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.shortcut = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        return ext.relu_k(x) + self.shortcut(x)
)");
  const auto two_convs = reference(R"(import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Conv2d(3, 3, 1)
        self.shortcut = nn.Conv2d(3, 3, 1)
    def forward(self, x):
        return self.main(x) + self.shortcut(x)
)");
  EXPECT_EQ(judged(one_of_two, two_convs, *env_), kAccepted) << one_of_two.dump();
  // All of it in torch, the same number of times, beside a kernel: nothing of the reference's is left to it.
  auto all_torch = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bias = nn.Parameter(torch.zeros(8, 1, 1))

    def forward(self, x):
        x = ext.relu_k(x)
        return torch.relu(self.conv(x) * 2.0 + self.bias)
)");
  EXPECT_EQ(judged(all_torch, ref, *env_), kFallback) << all_torch.dump();
}

TEST_F(StaticCheck, CppCommentsAreNoCode) {
  auto f = check("solution", R"(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
src = """
#include <torch/extension.h>
// x = torch::relu(x) would be simpler; /* at::relu(x) */ too
torch::Tensor relu_k(torch::Tensor x) {  /* a loop over x, "//" in a string stays */
  return x;  // at::relu(x)
}
"""
ext = load_inline(name="ext", cpp_sources=src, functions=["relu_k"])
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_k(x)
)");
  EXPECT_TRUE(f["cpp_torch_ops"].empty()) << f.dump();
  EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted);
}

TEST_F(StaticCheck, EarlyReturnsAndExceptionHandlers) {
  for (const std::string forward :
       {// A fallback after the kernel's early return runs only where the kernel's path does not.
        "        if x.is_cuda:\n            return ext.relu_k(x)\n        return torch.relu(x)\n",
        "        try:\n            return ext.relu_k(x)\n        except RuntimeError:\n"
        "            return torch.relu(x)\n",
        "        if x.dim() != 2:\n            raise ValueError('2-D only')\n        return ext.relu_k(x)\n"}) {
    auto f = solution("class ModelNew(nn.Module):\n    def forward(self, x):\n" + forward);
    EXPECT_TRUE(f["forward_units"].empty()) << forward << f.dump();
    EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted) << forward;
  }
  // The kernel first, then the reference's operator on every path: still the torch fallback.
  auto f = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        x = ext.relu_k(x)
        if x.dim() > 8:
            return x
        return torch.relu(x)
)");
  EXPECT_EQ(judged(f, reference(kReluProblem), *env_), kAccepted) << f.dump();
  auto g = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        y = ext.relu_k(x)
        try:
            y = torch.relu(x)
        except RuntimeError:
            return torch.relu(x)
        return y
)");
  EXPECT_EQ(judged(g, reference(kReluProblem), *env_), kFallback) << g.dump();
}

TEST_F(StaticCheck, HarmlessCodeIsNoHiddenCall) {
  auto f = solution(R"(
import numpy as np
SCALE = 1.0 / np.log2(8)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 3
        for i in range(2):
            setattr(self, f"w_{i}", nn.Parameter(torch.ones(1)))

    def forward(self, x):
        return ext.relu_k(x) * np.pi

    def extra_repr(self):
        return "k={k}".format(**self.__dict__)
)");
  EXPECT_TRUE(f["hidden_calls"].empty()) << f.dump();
  // The same constructs where they may compute or hide what runs are still refused.
  for (const std::string body : {
           "import numpy as np\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
           "        return torch.from_numpy(np.maximum(ext.relu_k(x).cpu().numpy(), 0))\n",
           "import numpy as np\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        f = np.exp\n"
           "        return ext.relu_k(x)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        print(self)\n        return ext.relu_k(x)\n"
           "    def extra_repr(self):\n        return str(self.__dict__)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        return self.__dict__['k'](x)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        return getattr(self, 'for' + 'ward')(x)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        n = 're'\n"
           "        return getattr(torch, n + 'lu')(ext.relu_k(x))\n",
       }) {
    auto g = solution(body);
    EXPECT_EQ(codes(judge_static(g, Backend::host, *env_)), kFallback) << body << g.dump();
  }
}

// Still refused: a kernel that never runs, or runs only where `self.training` is False (the runner, like
// KernelBench's harness, calls the model in training mode).
TEST_F(StaticCheck, KernelNeverRunningOrOffTheMeasuredPathRefused) {
  auto never = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernels = ext

    def forward(self, x):
        return torch.relu(x)
)");
  EXPECT_EQ(judged(never, reference(kReluProblem), *env_), kFallback);
  auto eval_only = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        if not self.training:
            return ext.relu_k(x)
        return torch.relu(x)
)");
  auto r = judge_static(eval_only, Backend::host, *env_);
  ASSERT_EQ(codes(r), kFallback) << eval_only.dump();
  EXPECT_NE(r[0].detail.find("self.training"), std::string::npos) << r[0].detail;
  // A file that switches modes itself makes `self.training` unknown: both branches may run.
  for (const std::string how : {"self.eval()", "getattr(self, 'eval')()", "self.training = False"}) {
    auto switched = solution(R"(
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        )" + how + R"(

    def forward(self, x):
        if not self.training:
            return ext.relu_k(x)
        return torch.relu(x)
)");
    EXPECT_EQ(judged(switched, reference(kReluProblem), *env_), kAccepted) << how << switched.dump();
  }
  // A forward that raises on the measured path is left to fail when it runs.
  auto raises = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        if self.training:
            raise RuntimeError("inference only")
        return ext.relu_k(x)
)");
  EXPECT_TRUE(judge_static(raises, Backend::host, *env_).empty()) << raises.dump();
}

}  // namespace
