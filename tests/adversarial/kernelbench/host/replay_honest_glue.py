# Honest: a C++ extension computes relu on a flattened copy of the input, and torch glue the static check does
# not know as glue (ravel, a product of sizes taken through a tensor) puts the shape back. The static check cannot
# attribute it; the trusted replay of the recorded extension call reproduces the checked output from the problem's
# own input: attribution trusted, basis replay.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>

torch::Tensor relu_flat(torch::Tensor x, int64_t n) {
  TORCH_CHECK(x.is_contiguous() && x.dim() == 1 && x.numel() == n, "a contiguous flat input expected");
  auto out = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] > 0.0f ? a[i] : 0.0f;
  return out;
}
"""

relu_ext = load_inline(name="kf_selftest_replay_glue", cpp_sources=relu_source, functions=["relu_flat"])


class ModelNew(nn.Module):
    def forward(self, x):
        n = int(torch.tensor(x.shape).prod())
        flat = x.ravel().contiguous()
        return relu_ext.relu_flat(flat, n).reshape(x.shape)
