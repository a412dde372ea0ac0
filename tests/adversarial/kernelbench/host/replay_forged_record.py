# Not attributable: the extension's C++ computes relu only inside kforge's runner (it looks for runner.py in its
# working folder) and returns zeros anywhere else. The runner records the right outputs, but the trusted replay,
# a fresh process that never imports the solution, gets zeros: the record is not what the extension does alone,
# as with a forged record. Attribution in_process, flag replay_mismatch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>
#include <unistd.h>

torch::Tensor relu_here(torch::Tensor x) {
  auto c = x.contiguous();
  auto out = torch::zeros_like(c);
  if (access("runner.py", F_OK) != 0) return out;
  const float* a = c.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) o[i] = a[i] > 0.0f ? a[i] : 0.0f;
  return out;
}
"""

relu_ext = load_inline(name="kf_selftest_replay_forged", cpp_sources=relu_source, functions=["relu_here"])


class ModelNew(nn.Module):
    def forward(self, x):
        # Arithmetic the static check cannot attribute: attribution is left to the replay.
        return relu_ext.relu_here(x) * 1.0
