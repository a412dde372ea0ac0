# Unsupported on the host backend: CUDA sources.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
__global__ void k(float* o) { o[threadIdx.x] = 0.0f; }
torch::Tensor zero(torch::Tensor x) { return x; }
"""

ext = load_inline(name="kf_selftest_cuda_on_host", cpp_sources="torch::Tensor zero(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["zero"])


class ModelNew(nn.Module):
    def forward(self, x, y):
        return ext.zero(x)
