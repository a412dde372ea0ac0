# A vendor library through ATen's handle (CUDA twin): cuBLAS's sgemm on the handle torch keeps.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_cpp = "torch::Tensor matmul(torch::Tensor a, torch::Tensor b);"
matmul_cuda = """
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>

torch::Tensor matmul(torch::Tensor a, torch::Tensor b) {
  const int n = a.size(0), k = a.size(1), m = b.size(1);
  auto out = torch::empty({n, m}, a.options());
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(at::cuda::getCurrentCUDABlasHandle(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, b.data_ptr<float>(), m,
              a.data_ptr<float>(), k, &zero, out.data_ptr<float>(), m);
  return out;
}
"""

matmul_ext = load_inline(name="kf_selftest_cuda_cublas", cpp_sources=matmul_cpp, cuda_sources=matmul_cuda,
                         functions=["matmul"], extra_ldflags=["-lcublas"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return matmul_ext.matmul(a.contiguous(), b.contiguous())
