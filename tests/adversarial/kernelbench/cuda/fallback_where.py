# Torch fallback (CUDA twin): torch.where does the ReLU's work beside a kernel that does nothing.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_forward(torch::Tensor x);\ntorch::Tensor touch(torch::Tensor x);"
relu_cuda = """
__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

torch::Tensor relu_forward(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous(), "contiguous CUDA input expected");
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  relu_kernel<<<static_cast<int>((n + 255) / 256), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}

// Does nothing: returns its input.
torch::Tensor touch(torch::Tensor x) { return x; }
"""

relu_ext = load_inline(name="kf_selftest_cuda_relu", cpp_sources=relu_cpp, cuda_sources=relu_cuda,
                       functions=["relu_forward", "touch"])


class ModelNew(nn.Module):
    def forward(self, x):
        x = relu_ext.touch(x)
        return torch.where(x > 0, x, torch.zeros_like(x))
