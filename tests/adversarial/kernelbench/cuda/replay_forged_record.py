# Not attributable: the extension computes relu only inside kforge's runner (it looks for runner.py in its working
# folder) and returns zeros anywhere else. The runner records the right outputs; the trusted replay, a fresh
# process that never imports the solution, gets zeros: the record is not what the extension does alone, as with
# a forged record. Attribution in_process, flag replay_mismatch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_cpp = "torch::Tensor relu_here(torch::Tensor x);"
relu_cuda = """
#include <unistd.h>

__global__ void relu_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

torch::Tensor relu_here(torch::Tensor x) {
  auto c = x.contiguous();
  auto out = torch::zeros_like(c);
  if (access("runner.py", F_OK) != 0) return out;
  const int64_t n = c.numel();
  const int threads = 256;
  relu_kernel<<<static_cast<int>((n + threads - 1) / threads), threads>>>(c.data_ptr<float>(),
                                                                          out.data_ptr<float>(), n);
  return out;
}
"""

relu_ext = load_inline(name="kf_selftest_cuda_replay_forged", cpp_sources=relu_cpp, cuda_sources=relu_cuda,
                       functions=["relu_here"])


class ModelNew(nn.Module):
    def forward(self, x):
        # Arithmetic the static check cannot attribute: attribution is left to the replay.
        return relu_ext.relu_here(x) * 1.0
