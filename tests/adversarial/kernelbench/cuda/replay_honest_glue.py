# Honest: a CUDA kernel computes relu on a flattened copy of the input; torch glue the static check does not know
# as glue (ravel, a product of sizes taken through a tensor) puts the shape back. The trusted replay of the
# recorded extension call reproduces the checked output from the problem's own input: attribution trusted
# (basis replay).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_flat(torch::Tensor x, int64_t n);"
relu_cuda = """
__global__ void relu_flat_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

torch::Tensor relu_flat(torch::Tensor x, int64_t n) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.dim() == 1 && x.numel() == n, "a contiguous flat input expected");
  auto out = torch::empty_like(x);
  const int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  relu_flat_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

relu_ext = load_inline(name="kf_selftest_cuda_replay_glue", cpp_sources=relu_cpp, cuda_sources=relu_cuda,
                       functions=["relu_flat"])


class ModelNew(nn.Module):
    def forward(self, x):
        n = int(torch.tensor(x.shape).prod())
        flat = x.ravel().contiguous()
        return relu_ext.relu_flat(flat, n).reshape(x.shape)
