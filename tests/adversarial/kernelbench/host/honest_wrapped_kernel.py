# Honest: the kernel is called from a small module class of the solution's own, held as a submodule, in a
# loop over row blocks with shape arithmetic.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_add_source = """
#include <torch/extension.h>

// 2 * x + y over contiguous float32 tensors of the same shape.
torch::Tensor scale_add(torch::Tensor x, torch::Tensor y) {
  TORCH_CHECK(x.is_contiguous() && y.is_contiguous() && x.numel() == y.numel(), "bad inputs");
  auto out = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  const float* b = y.data_ptr<float>();
  float* o = out.data_ptr<float>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = 2.0f * a[i] + b[i];
  return out;
}
"""

scale_add_ext = load_inline(name="kf_selftest_scale_add", cpp_sources=scale_add_source, functions=["scale_add"])


class RowBlocks(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        rows = x.shape[0]
        block = max(1, rows // 4)
        for start in range(0, rows, block):
            stop = min(rows, start + block)
            out[start:stop] = scale_add_ext.scale_add(x[start:stop].contiguous(), y[start:stop].contiguous())
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = RowBlocks()

    def forward(self, x, y):
        return self.blocks(x, y)
