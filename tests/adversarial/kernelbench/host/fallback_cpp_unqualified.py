# Torch fallback in C++: relu() called without a namespace (argument-dependent lookup finds at::relu). The
# text never says torch:: or at::; the extension's symbol table does.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
  return relu(x);
}
"""

relu_ext = load_inline(name="kf_selftest_relu_adl", cpp_sources=relu_source, functions=["relu_forward"])


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_ext.relu_forward(x.contiguous())
