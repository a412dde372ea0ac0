# Honest ReLU (KernelBench level 1 problem 19) as a KernelBench solution: a CUDA kernel built with load_inline.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_forward(torch::Tensor x);"
relu_cuda = """
__global__ void relu_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
    y[i] = v;
  }
}

__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
  const int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

torch::Tensor relu_forward(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32, "contiguous float32 CUDA input");
  auto y = torch::empty_like(x);
  const int64_t n = x.numel(), n4 = n / 4;
  if (n4) relu_vec<<<132 * 16, 512>>>(reinterpret_cast<const float4*>(x.data_ptr<float>()),
                                      reinterpret_cast<float4*>(y.data_ptr<float>()), n4);
  if (n % 4) relu_tail<<<1, 4>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4 * 4, n);
  return y;
}
"""

relu_ext = load_inline(name="kf_test_relu_solution", cpp_sources=relu_cpp, cuda_sources=relu_cuda,
                       functions=["relu_forward"], extra_cflags=["-O3"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_ext.relu_forward(x.contiguous())
