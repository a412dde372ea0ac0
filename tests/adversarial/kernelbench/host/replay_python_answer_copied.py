# Not attributable: the answer is computed in Python (tensor arithmetic, no named operator) and fed through a
# kernel that only copies it. The copy kernel ran and its output is the checked output, but its input is none of
# the problem's inputs, the reference's parameters or an earlier kernel's output: the replay's dataflow check
# leaves attribution in_process.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

copy_source = """
#include <torch/extension.h>

torch::Tensor copy_of(torch::Tensor x) {
  auto c = x.contiguous();
  auto out = torch::empty_like(c);
  const float* a = c.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) o[i] = a[i];
  return out;
}
"""

copy_ext = load_inline(name="kf_selftest_replay_copy", cpp_sources=copy_source, functions=["copy_of"])


class ModelNew(nn.Module):
    def forward(self, x):
        answer = x * (x > 0)
        return copy_ext.copy_of(answer)
