# Torch fallback in a CUDA extension's C++ (CUDA twin): relu() without a namespace; the symbol table names at::relu.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_forward(torch::Tensor x);"
relu_cuda = """
__global__ void unused_kernel(float* out) { out[0] = 0.0f; }

torch::Tensor relu_forward(torch::Tensor x) { return relu(x); }
"""

relu_ext = load_inline(name="kf_selftest_cuda_relu_adl", cpp_sources=relu_cpp, cuda_sources=relu_cuda,
                       functions=["relu_forward"])


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_ext.relu_forward(x.contiguous())
