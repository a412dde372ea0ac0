# Torch fallback after a failed build: the extension cannot compile, the solution catches the failure and computes
# with PyTorch. kforge builds every recorded extension itself, so the failure is the verdict.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) { return x.no_such_method(); }
"""

try:
    relu_ext = load_inline(name="kf_selftest_failed_build", cpp_sources=relu_source, functions=["relu_forward"])
except Exception:
    relu_ext = None


class ModelNew(nn.Module):
    def forward(self, x):
        if relu_ext is None:
            return torch.relu(x)
        return relu_ext.relu_forward(x)
