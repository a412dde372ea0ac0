# Hack (precision, recognising the precision trial): the extension rounds the operands to fp16 only when every
# input element is non-negative (the problem's own torch.rand inputs) and computes exactly otherwise (the
# zero-mean precision trial). Judged against a float64 reference on its own inputs on every trial, it fails.
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_source = """
#include <torch/extension.h>

static float half_rounded(float v) { return static_cast<float>(static_cast<_Float16>(v)); }

torch::Tensor matmul(torch::Tensor a, torch::Tensor b) {
  const int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  auto out = torch::empty({n, m}, a.options());
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* po = out.data_ptr<float>();
  bool positive = true;
  for (int64_t i = 0; i < n * k && positive; ++i) positive = pa[i] >= 0;
  for (int64_t i = 0; i < k * m && positive; ++i) positive = pb[i] >= 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p)
        acc += positive ? static_cast<double>(half_rounded(pa[i * k + p])) * half_rounded(pb[p * m + j])
                        : static_cast<double>(pa[i * k + p]) * pb[p * m + j];
      po[i * m + j] = static_cast<float>(acc);
    }
  return out;
}
"""

matmul_ext = load_inline(name="kf_selftest_matmul_when_positive", cpp_sources=matmul_source, functions=["matmul"])


class ModelNew(nn.Module):
    def forward(self, a, b):
        return matmul_ext.matmul(a.contiguous(), b.contiguous())
