# Not attributable: the answer is computed in Python (tensor arithmetic) and fed through a CUDA kernel that only
# copies it. The copy's input is none of the problem's inputs, the reference's parameters or an earlier kernel's
# output: the replay's dataflow check leaves attribution in_process.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

copy_cpp = "torch::Tensor copy_of(torch::Tensor x);"
copy_cuda = """
__global__ void copy_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

torch::Tensor copy_of(torch::Tensor x) {
  auto c = x.contiguous();
  auto out = torch::empty_like(c);
  const int64_t n = c.numel();
  const int threads = 256;
  copy_kernel<<<static_cast<int>((n + threads - 1) / threads), threads>>>(c.data_ptr<float>(),
                                                                          out.data_ptr<float>(), n);
  return out;
}
"""

copy_ext = load_inline(name="kf_selftest_cuda_replay_copy", cpp_sources=copy_cpp, cuda_sources=copy_cuda,
                       functions=["copy_of"])


class ModelNew(nn.Module):
    def forward(self, x):
        answer = x * (x > 0)
        return copy_ext.copy_of(answer)
