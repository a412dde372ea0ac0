# Hack (precision): a matmul kernel that rounds its operands to fp16, on an fp32 problem.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_cpp = "torch::Tensor matmul_fp16_operands(torch::Tensor a, torch::Tensor b);"
matmul_cuda = """
#include <cuda_fp16.h>

__global__ void matmul_kernel(const float* a, const float* b, float* c, int n, int k, int m) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= m) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc += __half2float(__float2half(a[row * k + p])) * __half2float(__float2half(b[p * m + col]));
  c[row * m + col] = acc;
}

torch::Tensor matmul_fp16_operands(torch::Tensor a, torch::Tensor b) {
  const int n = a.size(0), k = a.size(1), m = b.size(1);
  auto c = torch::empty({n, m}, a.options());
  const dim3 threads(16, 16);
  const dim3 blocks((m + 15) / 16, (n + 15) / 16);
  matmul_kernel<<<blocks, threads>>>(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n, k, m);
  return c;
}
"""

matmul_ext = load_inline(name="kf_selftest_cuda_matmul_fp16", cpp_sources=matmul_cpp, cuda_sources=matmul_cuda,
                         functions=["matmul_fp16_operands"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return matmul_ext.matmul_fp16_operands(a.contiguous(), b.contiguous())
