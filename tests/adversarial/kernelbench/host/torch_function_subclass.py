# A Tensor subclass with __torch_function__: it would be handed the runner's output buffer in the copy.
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


class Answer(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


class ModelNew(nn.Module):
    def forward(self, x, y):
        return scale_add_ext.scale_add(x.contiguous(), y.contiguous()).as_subclass(Answer)
