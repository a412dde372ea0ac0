# Hack: launches the work on a side stream and returns without synchronising; the result is copied before
# the (slowed) kernel has written it.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

side_cpp = "torch::Tensor scale_add_side_stream(torch::Tensor x, torch::Tensor y);"
side_cuda = """
__global__ void slow_scale_add(const float* x, const float* y, float* out, int64_t n, long long spin) {
  const long long start = clock64();
  while (clock64() - start < spin) {
  }
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i] + y[i];
}

torch::Tensor scale_add_side_stream(torch::Tensor x, torch::Tensor y) {
  static cudaStream_t side = nullptr;
  if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  auto out = torch::empty_like(x);
  const int64_t n = x.numel();
  slow_scale_add<<<static_cast<int>((n + 255) / 256), 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                                      out.data_ptr<float>(), n, 200000000LL);
  return out;
}
"""

side_ext = load_inline(name="kf_selftest_cuda_side_stream", cpp_sources=side_cpp, cuda_sources=side_cuda,
                       functions=["scale_add_side_stream"])


class ModelNew(nn.Module):
    def forward(self, x, y):
        return side_ext.scale_add_side_stream(x.contiguous(), y.contiguous())
