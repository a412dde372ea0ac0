# Honest (CUDA twin): nvcc flags a solution legitimately passes, host-compiler ones forwarded with -Xcompiler.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_add_cpp = "torch::Tensor scale_add(torch::Tensor x, torch::Tensor y);"
scale_add_cuda = """
__global__ void scale_add_kernel(const float* x, const float* y, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i] + y[i];
}

torch::Tensor scale_add(torch::Tensor x, torch::Tensor y) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && y.is_contiguous() && x.numel() == y.numel(), "bad inputs");
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  const int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  scale_add_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

scale_add_ext = load_inline(name="kf_selftest_cuda_scale_add", cpp_sources=scale_add_cpp, cuda_sources=scale_add_cuda,
                            functions=["scale_add"],
                            extra_cuda_cflags=["-O3", "--use_fast_math", "-Xcompiler", "-O3,-Wall", "-Xptxas=-v", "-lineinfo"])


class ModelNew(nn.Module):
    def forward(self, x, y):
        return scale_add_ext.scale_add(x.contiguous(), y.contiguous())
