// The static check of kernelbench solutions: python fixtures through the real sandboxed job
// (evaluator/kernelbench/static_check.py), then the verdicts kforge derives from the findings.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/data_dir.h"
#include "evaluator/kernelbench/compiler_flags.h"
#include "evaluator/kernelbench/extension_call.h"
#include "evaluator/kernelbench/extension_symbols.h"
#include "evaluator/kernelbench/static_check.h"
#include "tests/evaluator/static_check_fixture.h"
#include "tests/support/command.h"

using namespace kf::eval;
using namespace kf::eval::kernelbench;

using kf::eval::kernelbench::testing::StaticCheck;

namespace {

TEST_F(StaticCheck, KernelReachedThroughAliasesAndInstanceAttributes) {
  auto f = solution(R"(
import torch.nn.functional as Fn
relu_fn = ext.relu_k

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernels = ext

    def forward(self, x):
        return self.helper(x)

    def helper(self, x):
        y = self.kernels.relu_k(x)
        return relu_fn(y)
)");
  EXPECT_TRUE(f["has_model_new"].get<bool>());
  EXPECT_TRUE(f["kernel_reachable"].get<bool>()) << f.dump();
  EXPECT_EQ(f["kernel_calls"].size(), 2u) << f.dump();
  EXPECT_TRUE(ops(f).empty()) << f.dump();
  EXPECT_TRUE(judge_static(f, Backend::host, *env_).empty());
}

TEST_F(StaticCheck, TorchOperatorsNormalisedAndConditionalOnesMarked) {
  auto f = solution(R"(
import torch.nn.functional as Fn

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.unused = nn.Softmax(dim=1)

    def forward(self, x, w):
        x = self.conv(x)
        x = x @ w
        if not x.is_cuda:
            return Fn.relu(x)
        return ext.relu_k(x).sum(dim=1)
)");
  EXPECT_TRUE(f["kernel_reachable"].get<bool>());
  auto all = ops(f), sure = ops(f, false);
  EXPECT_EQ(all, (std::vector<std::string>{"conv2d", "matmul", "relu", "sum"})) << f.dump();
  // After `if ...: return`, what follows runs on one path only.
  EXPECT_EQ(sure, (std::vector<std::string>{"conv2d", "matmul"})) << f.dump();
  // Every reference operator on every path: the reference's work done by torch.
  auto r = judge_torch_fallback(f, work({"conv2d", "matmul"}), nullptr);
  ASSERT_EQ(codes(r), (std::vector<std::string>{"rejected.torch_fallback"}));
  EXPECT_NE(r[0].detail.find("conv2d"), std::string::npos) << r[0].detail;
  // One of them only behind a branch: partial replacement, recorded but not rejected.
  Coverage coverage;
  EXPECT_TRUE(judge_torch_fallback(f, work({"conv2d", "relu"}), &coverage).empty());
  EXPECT_EQ(coverage.torch, (std::vector<std::string>{"conv2d", "relu"}));
  EXPECT_TRUE(coverage.partial());
  // A reference without work to fall back to leaves the rule out.
  EXPECT_TRUE(judge_torch_fallback(f, work({}), nullptr).empty());
}

TEST_F(StaticCheck, NoKernelReachedIsTorchFallback) {
  auto f = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
)");
  EXPECT_FALSE(f["kernel_reachable"].get<bool>());
  EXPECT_EQ(codes(judge_static(f, Backend::host, *env_)), (std::vector<std::string>{"rejected.torch_fallback"}));
}

TEST_F(StaticCheck, SuperForwardIsTheReference) {
  auto f = solution(R"(
class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)

class ModelNew(Model):
    def forward(self, x):
        ext.relu_k(x[:1])
        return super().forward(x)
)");
  EXPECT_EQ(ops(f, false), (std::vector<std::string>{"softmax"})) << f.dump();
  EXPECT_EQ(codes(judge_torch_fallback(f, work({"softmax"}), nullptr)),
            (std::vector<std::string>{"rejected.torch_fallback"}));
}

TEST_F(StaticCheck, TritonKernelLaunchedFromAHelper) {
  auto f = run_static_check(*env_, "solution", R"(
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.autotune(configs=[], key=["n"])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass

def launch(x):
    k[(1,)](x, x.numel(), BLOCK=128)
    return x

class ModelNew(nn.Module):
    def forward(self, x):
        return launch(x)
)");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE((*f)["kernel_reachable"].get<bool>()) << f->dump();
  EXPECT_TRUE((*f)["uses_triton"].get<bool>());
  auto host = judge_static(*f, Backend::host, *env_);
  ASSERT_EQ(codes(host), (std::vector<std::string>{"compile_error.unsupported"}));
  auto cuda = judge_static(*f, Backend::cuda, *env_);
  if (!env_->has_package("triton")) {
    ASSERT_EQ(codes(cuda), (std::vector<std::string>{"compile_error.missing_package"}));
    EXPECT_NE(cuda[0].detail.find("Triton"), std::string::npos);
  } else {
    EXPECT_TRUE(cuda.empty());
  }
}

TEST_F(StaticCheck, ExtensionCppCallingTorchOperatorsCounts) {
  auto f = run_static_check(*env_, "solution", R"(
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline as build

src = """
#include <torch/extension.h>
torch::Tensor mm(torch::Tensor a, torch::Tensor b) { return torch::matmul(a, b); }
"""
mod = build("mm_ext", src, functions=["mm"])

class ModelNew(nn.Module):
    def forward(self, a, b):
        return mod.mm(a, b)
)");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE((*f)["kernel_reachable"].get<bool>());
  ASSERT_EQ((*f)["cpp_torch_ops"].size(), 1u) << f->dump();
  EXPECT_EQ((*f)["cpp_torch_ops"][0]["op"], "matmul");
  EXPECT_EQ((*f)["load_inline"][0]["name"], "mm_ext");
  EXPECT_EQ(codes(judge_torch_fallback(*f, work({"matmul"}), nullptr)),
            (std::vector<std::string>{"rejected.torch_fallback"}));
}

TEST_F(StaticCheck, HarnessTamperingFromPython) {
  for (const char* body : {
           "setattr(torch.cuda, 'synchronize', lambda: None)\n",
           "import time as t\nt.perf_counter = lambda: 0.0\n",
           "from torch import cuda\ncuda.Event.elapsed_time = lambda s, e: 0.0\n",
           "import builtins\nbuiltins.print = None\n",
           "import sys\nsys.modules['torch'] = None\n",
           "import inspect\nframe = inspect.currentframe().f_back\n",
           "import gc\nobjs = gc.get_objects()\n",
           "import ctypes\n",
           "data = open('/proc/self/mem', 'rb')\n",
       }) {
    auto f = solution(std::string(body) + R"(
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_k(x)
)");
    EXPECT_EQ(codes(judge_static(f, Backend::host, *env_)), (std::vector<std::string>{"rejected.harness_tampering"}))
        << body << f.dump();
  }
  // Settings are not tampering (reduced precision has its own trial).
  auto ok = solution("torch.backends.cudnn.benchmark = True\n" + std::string(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_k(x)
)"));
  EXPECT_TRUE(judge_static(ok, Backend::host, *env_).empty()) << ok.dump();
}

TEST_F(StaticCheck, WhatKforgeCannotRun) {
  auto syntax = run_static_check(*env_, "solution", "def broken(:\n");
  ASSERT_TRUE(syntax.ok());
  auto r = judge_static(*syntax, Backend::host, *env_);
  ASSERT_EQ(codes(r), (std::vector<std::string>{"compile_error"}));
  EXPECT_NE(r[0].detail.find("line 1"), std::string::npos) << r[0].detail;

  auto no_model = solution("class Model(nn.Module):\n    def forward(self, x):\n        return x\n");
  EXPECT_EQ(codes(judge_static(no_model, Backend::host, *env_)),
            (std::vector<std::string>{"compile_error.unsupported"}));

  auto files = solution(R"(
from torch.utils.cpp_extension import load
m = load(name="m", sources=["m.cpp"])
class ModelNew(nn.Module):
    def forward(self, x):
        return m.f(x)
)");
  EXPECT_EQ(codes(judge_static(files, Backend::host, *env_)), (std::vector<std::string>{"compile_error.unsupported"}));

  auto cuda_src = run_static_check(*env_, "solution", R"(
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
m = load_inline(name="m", cpp_sources="", cuda_sources="__global__ void k() {}", functions=["f"])
class ModelNew(nn.Module):
    def forward(self, x):
        return m.f(x)
)");
  ASSERT_TRUE(cuda_src.ok());
  EXPECT_EQ(codes(judge_static(*cuda_src, Backend::host, *env_)),
            (std::vector<std::string>{"compile_error.unsupported"}));
  EXPECT_TRUE(judge_static(*cuda_src, Backend::cuda, *env_).empty());

  auto deep = run_static_check(*env_, "solution", "x = " + std::string(200000, '(') + "1" + std::string(200000, ')'));
  ASSERT_TRUE(deep.ok());
  EXPECT_FALSE((*deep)["ok"].get<bool>());
}

TEST_F(StaticCheck, ReferenceOperatorsOfAProblem) {
  auto f = run_static_check(*env_, "problem", R"(
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
        self.norm = nn.GroupNorm(2, 8)

    def forward(self, x):
        x = self.norm(self.body(x))
        return torch.mean((x - 1.0) ** 2, dim=1) * 2 + 1
)");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)["reference_ops"], nlohmann::json({"conv2d", "group_norm", "mean", "pow", "relu"})) << f->dump();
  // Its work in units: each operator where forward reaches it, and the arithmetic on tensors (- 1.0, * 2, + 1).
  EXPECT_EQ((*f)["reference_units"],
            nlohmann::json({{"arithmetic", 3}, {"conv2d", 1}, {"group_norm", 1}, {"mean", 1}, {"pow", 1}, {"relu", 1}}))
      << f->dump();
}

// The field's fallback styles that hide a call from the text are refused whatever they call.
TEST_F(StaticCheck, HiddenCallsRefused) {
  for (const std::string body : {
           "import numpy as np\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
           "        return torch.as_tensor(np.maximum(ext.relu_k(x).cpu(), 0))\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        n = 'relu'\n        ext.relu_k(x)\n"
           "        return getattr(torch, n)(x)\n",
           "import importlib\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.relu_k(x)\n",
           "import base64\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.relu_k(x)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.relu_k(x)\n"
           "    def __call__(self, x):\n        return torch.relu(x)\n",
           "ext.relu_k = torch.relu\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        return "
           "ext.relu_k(x)\n",
           "class ModelNew(nn.Module):\n    def forward(self, x):\n        return torch.compile(ext.relu_k)(x)\n",
       }) {
    auto f = solution(body);
    EXPECT_EQ(codes(judge_static(f, Backend::host, *env_)), (std::vector<std::string>{"rejected.torch_fallback"}))
        << body << f.dump();
  }
  // os is the runner's too: patching it is tampering.
  auto f = solution(
      "import os\nos._exit = print\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
      "        return ext.relu_k(x)\n");
  EXPECT_EQ(codes(judge_static(f, Backend::host, *env_)), (std::vector<std::string>{"rejected.harness_tampering"}));
}

// Every ATen operator counts (torch.where, torch.ops.aten, a copy of the reference held as a submodule), and an
// operator that can do another's whole work covers it in the every-operator rule.
TEST_F(StaticCheck, EveryOperatorCountsAndCoversItsEquivalents) {
  auto f = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        x = ext.relu_k(x)
        return torch.where(x > 0, x, torch.zeros_like(x))
)");
  EXPECT_EQ(ops(f), (std::vector<std::string>{"where"})) << f.dump();
  EXPECT_EQ(codes(judge_torch_fallback(f, work({"relu"}), nullptr)),
            (std::vector<std::string>{"rejected.torch_fallback"}));
  auto copy = solution(R"(
class Model(nn.Module):
    def forward(self, x):
        return torch.ops.aten.relu.default(x)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ref = Model()

    def forward(self, x):
        return self.ref(ext.relu_k(x))
)");
  EXPECT_EQ(ops(copy), (std::vector<std::string>{"relu"})) << copy.dump();
  EXPECT_FALSE(copy["attribution"]["trusted"].get<bool>());
}

// Trusted attribution: forward reaches nothing but kernels, allocation, views and shape arithmetic.
TEST_F(StaticCheck, AttributionTrustedOnlyForKernelsAndGlue) {
  auto honest = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        b, n = x.shape
        out = torch.empty_like(x)
        for start in range(0, b, max(1, b // 2)):
            out[start:start + 1] = ext.relu_k(x[start:start + 1].contiguous())
        return out.view(b, n)
)");
  EXPECT_TRUE(honest["attribution"]["trusted"].get<bool>()) << honest.dump();
  auto arithmetic = solution(R"(
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_k(x) * (x > 0)
)");
  EXPECT_FALSE(arithmetic["attribution"]["trusted"].get<bool>()) << arithmetic.dump();
  EXPECT_TRUE(judge_static(arithmetic, Backend::host, *env_).empty());
}

// The answer stays bounded and valid UTF-8 whatever names the solution holds.
TEST_F(StaticCheck, AnswerBoundedAndReadable) {
  std::string body;
  for (int i = 0; i < 64; ++i) body += "import kf_" + std::to_string(i) + "_" + std::string(15000, 'x') + "\n";
  body += "e2 = load_inline(name='bad_\\ud800', cpp_sources='', functions=['f'])\n";
  body += "class ModelNew(nn.Module):\n    def forward(self, x):\n        return ext.relu_k(x)\n";
  auto f = solution(body);
  ASSERT_TRUE(f.is_object());
  EXPECT_TRUE(f["ok"].get<bool>()) << f.dump().substr(0, 500);
  EXPECT_LT(f.dump().size(), 256u << 10);
}

TEST(ExtensionCall, KeyMatchesThePythonSide) {
  const std::string py = "python3";
  // One record with every kind of value the key covers, hashed by extension_call.py and by C++.
  const std::string script =
      "import sys, json; sys.path.insert(0, '" + kf::data_path("evaluator/kernelbench") +
      "'); import extension_call as e; "
      "c = e.normalise(name='x', cpp_sources='int f();\\n\"q\"\\x01 \\u00e9', functions={'f': 'doc \\u00e9'}, "
      "extra_cflags=['-O3'], with_cuda=False); print(json.dumps(c)); print(e.key(c))";
  const auto ran = kf::testing::run_shell(py + " -I -c " + kf::testing::quote(script));
  ASSERT_EQ(ran.exit_code, 0);
  const auto nl = ran.out.find('\n');
  auto record = nlohmann::json::parse(ran.out.substr(0, nl));
  std::string key = ran.out.substr(nl + 1);
  key.erase(key.find_last_not_of("\n") + 1);
  EXPECT_EQ(extension_key(record), key);
  auto call = parse_extension_call(record);
  ASSERT_TRUE(call.ok()) << call.error().message;
  EXPECT_EQ(call->key, key);
  EXPECT_NE(call->main_cpp().find("m.def(\"f\", torch::wrap_pybind_function(f), \"doc \xc3\xa9\");"), std::string::npos)
      << call->main_cpp();
}

TEST(ExtensionCall, HostileRecordsRefused) {
  auto base = nlohmann::json{{"name", "ok_name"}, {"cpp_sources", {"int f();"}}, {"functions", {"f"}}};
  EXPECT_TRUE(parse_extension_call(base).ok());
  for (auto [field, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"name", "../../etc/x"},
           {"name", "a b"},
           {"functions", {"f); system(\"x\""}},
           {"extra_cflags", {"-o/tmp/x"}},
           {"extra_ldflags", {"@/etc/passwd"}},
           {"extra_cuda_cflags", {"-ccbin=/bin/sh"}},
           {"cpp_sources", {1, 2}},
           {"is_python_module", false},
           // Wrong types where the solution's recorder wrote them: refused, never thrown.
           {"name", 5},
           {"name", nlohmann::json::object()},
           {"extra_cflags", {"-B/tmp"}},
           {"extra_cflags", {"-specs=/tmp/x"}},
           {"extra_cflags", {"-Wp,-include,/etc/passwd"}},
           {"extra_cuda_cflags", {"-Xcompiler=-fplugin=/tmp/p.so"}},
           {"extra_cuda_cflags", {"-Xcompiler", "-O3,-wrapper,/bin/sh"}},
           {"extra_cuda_cflags", {"--compiler-options", "-B/tmp"}},
           {"extra_cuda_cflags", {"-Xlinker", "-rpath=/tmp"}},
           {"extra_ldflags", {"-Wl,-rpath,/tmp"}},
           {"extra_include_paths", {"-fplugin=x"}},
       }) {
    auto r = base;
    r[field] = value;
    auto call = parse_extension_call(r);
    EXPECT_FALSE(call.ok()) << field << " = " << value.dump();
    if (!call.ok()) {
      EXPECT_EQ(call.error().code, "compile_error.unsupported");
    }
  }
  // Booleans of the wrong type fall back to load_inline's defaults.
  auto odd = base;
  odd["is_python_module"] = "yes";
  odd["with_pytorch_error_handling"] = nlohmann::json::array();
  odd["functions"] = {{"f", 3}};
  EXPECT_TRUE(parse_extension_call(odd).ok());
  auto no_functions = base;
  no_functions["functions"] = nlohmann::json::array();
  EXPECT_FALSE(parse_extension_call(no_functions).ok());
  no_functions["cpp_sources"] = {"PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}"};
  EXPECT_TRUE(parse_extension_call(no_functions).ok());
}

// Flags read as torch's ninja file reads them: KernelBench's own examples pass extra_cflags=[""], and models
// often pass "-O3 --use_fast_math" as one string. The sources are never split.
TEST(ExtensionCall, FlagsAreSplitLikeTorchsBuildFile) {
  auto r = nlohmann::json{{"name", "ok_name"},
                          {"cpp_sources", {"int f();  int g();"}},
                          {"functions", {"f"}},
                          {"extra_cflags", {"", "-O3 -DX=1"}},
                          {"extra_cuda_cflags", {" --use_fast_math "}},
                          {"extra_ldflags", {""}}};
  auto call = parse_extension_call(r);
  ASSERT_TRUE(call.ok()) << call.error().message;
  EXPECT_EQ(call->extra_cflags, (std::vector<std::string>{"-O3", "-DX=1"}));
  EXPECT_EQ(call->extra_cuda_cflags, (std::vector<std::string>{"--use_fast_math"}));
  EXPECT_TRUE(call->extra_ldflags.empty());
  EXPECT_EQ(call->cpp_sources, (std::vector<std::string>{"int f();  int g();"}));
  r["extra_cflags"] = {"-O2 -o /tmp/x"};
  EXPECT_FALSE(parse_extension_call(r).ok());
}

// One allow-list, applied to what each tool finally sees: nvcc's and gcc's forwarding expanded first.
TEST(CompilerFlags, AllowListAppliesAfterForwarding) {
  auto ok = [](std::vector<std::string> flags, FlagTool tool) {
    return check_compiler_flags(flags, tool, "flags", "ext").ok();
  };
  EXPECT_TRUE(ok({"-O3", "-march=native", "-funroll-loops", "-Wall", "-Wno-unused", "-DBLOCK=64", "-std=c++17",
                  "-fopenmp", "-ffast-math", "-g", "-I/opt/x"},
                 FlagTool::gcc));
  EXPECT_TRUE(ok({"-O3",
                  "--use_fast_math",
                  "-Xcompiler",
                  "-fopenmp,-O3",
                  "-Xcompiler=-Wall",
                  "--compiler-options",
                  "-fPIC",
                  "-Xptxas=-v",
                  "-Xptxas",
                  "-O3,--warn-on-spills",
                  "-lineinfo",
                  "--maxrregcount=64",
                  "-gencode",
                  "arch=compute_90a,code=sm_90a",
                  "-arch=sm_90",
                  "--expt-relaxed-constexpr",
                  "-std=c++17",
                  "-DX",
                  "-t",
                  "4"},
                 FlagTool::nvcc));
  EXPECT_TRUE(
      ok({"-lcublas", "-L/usr/local/cuda/lib64", "-Wl,--as-needed", "-Xlinker", "--no-as-needed"}, FlagTool::link));
  for (const auto& bad : std::vector<std::vector<std::string>>{{"-fplugin=/tmp/x.so"},
                                                               {"-wrapper", "sh"},
                                                               {"-B/tmp"},
                                                               {"-specs=/tmp/s"},
                                                               {"@/tmp/flags"},
                                                               {"-o", "/tmp/x"},
                                                               {"-Wl,-rpath,/tmp"},
                                                               {"-Wa,-adhln"},
                                                               {"-Wp,-include,/etc/passwd"},
                                                               {"-include", "x.h"},
                                                               {"-save-temps"},
                                                               {"-fdump-tree-all"},
                                                               {"-Xlinker", "-rpath"},
                                                               {"-I-fplugin=x"},
                                                               {"-D"}})
    EXPECT_FALSE(ok(bad, FlagTool::gcc)) << bad[0];
  for (const auto& bad : std::vector<std::vector<std::string>>{{"-Xcompiler=-fplugin=/tmp/x.so"},
                                                               {"-Xcompiler", "-O3,-wrapper,/bin/sh"},
                                                               {"--compiler-options=-B/tmp"},
                                                               {"-Xcompiler", "-specs=/tmp/s"},
                                                               {"-Xcompiler", "@/tmp/f"},
                                                               {"@/tmp/f"},
                                                               {"-ccbin=/bin/sh"},
                                                               {"--compiler-bindir", "/bin"},
                                                               {"-Xlinker", "-rpath"},
                                                               {"--linker-options=-rpath"},
                                                               {"-Xnvlink", "x"},
                                                               {"-Xptxas", "--output-file=/tmp/x"},
                                                               {"--keep"},
                                                               {"-rdc=true"},
                                                               {"--options-file", "f"},
                                                               {"-Xcompiler"}})
    EXPECT_FALSE(ok(bad, FlagTool::nvcc)) << bad[0];
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"-Wl,-rpath,/tmp"}, {"-Xlinker", "--wrap=malloc"}, {"-l:libevil.so"}, {"/tmp/evil.so"}, {"-ldl"}})
    EXPECT_FALSE(ok(bad, FlagTool::link)) << bad[0];
  const auto refused =
      check_compiler_flags({"-O3", "-Xcompiler=-O2,-fplugin=p.so"}, FlagTool::nvcc, "extra_cuda_cflags", "ext");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("'-fplugin=p.so' (passed to g++ through -Xcompiler=)"), std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(check_include_paths({"@x"}, "ext").ok());
  EXPECT_TRUE(check_include_paths({"/opt/include", "rel/dir"}, "ext").ok());
}

// What a built extension imports decides, not its source text: ATen's compute operators, run-time lookups and
// the interpreter's code execution are refused by their symbols; allocation, views, copies and the binding's
// own needs are not.
TEST(ExtensionSymbols, ComputeOperatorsAndLookupsRefusedGlueAllowed) {
  const std::vector<std::string> glue = {
      "_ZN2at4_ops10empty_like4callERKNS_6TensorESt8optionalIN3c1010ScalarTypeEES5_INS6_6LayoutEES5_INS6_"
      "6DeviceEES5_IbES5_INS6_12MemoryFormatEE",
      "_ZN2at4_ops4view4callERKNS_6TensorEN3c108ArrayRefINS5_6SymIntEEE",
      "_ZN2at4_ops8to_dtype4callERKNS_6TensorEN3c1010ScalarTypeEbbSt8optionalINS5_12MemoryFormatEE",
      "_ZN3c106detail14torchCheckFailEPKcS2_jS2_",
      "PyEval_GetBuiltins",
      "PyObject_GetAttrString",
      "malloc",
      "_ZN3c104cuda20getCurrentCUDAStreamEa"};
  EXPECT_TRUE(refused_imports(glue, false).empty());
  auto one = [](const std::string& symbol, bool vendor_ok = false) {
    auto r = refused_imports({symbol}, vendor_ok);
    return r.empty() ? std::string("accepted") : r[0].code;
  };
  EXPECT_EQ(one("_ZN2at4_ops6matmul4callERKNS_6TensorES4_"), "rejected.torch_fallback");
  EXPECT_EQ(one("_ZN2at4_ops4relu4callERKNS_6TensorE"), "rejected.torch_fallback");
  EXPECT_EQ(one("_ZN2at4_ops10where_self4callERKNS_6TensorES4_S4_"), "rejected.torch_fallback");
  EXPECT_EQ(one("_ZN2at6native4reluERKNS_6TensorE"), "rejected.torch_fallback");
  EXPECT_EQ(one("_ZN3c1010Dispatcher17findSchemaOrThrowEPKcS2_"), "rejected.torch_fallback");
  EXPECT_EQ(one("PyImport_ImportModule"), "rejected.torch_fallback");
  EXPECT_EQ(one("PyRun_StringFlags"), "rejected.torch_fallback");
  EXPECT_EQ(one("dlsym"), "rejected.vendor_library");
  EXPECT_EQ(one("dlopen"), "rejected.vendor_library");
  EXPECT_EQ(one("cublasSgemm_v2"), "rejected.vendor_library");
  EXPECT_EQ(one("cublasSgemm_v2", true), "accepted");
  EXPECT_EQ(one("_ZN2at4cuda24getCurrentCUDABlasHandleEv"), "rejected.vendor_library");
  const auto r = refused_imports({"_ZN2at4_ops6matmul4callERKNS_6TensorES4_"}, false);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].symbol, "at::_ops::matmul::call(at::Tensor const&, at::Tensor const&)");
}

}  // namespace
