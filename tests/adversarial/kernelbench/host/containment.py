# Containment: tries kforge's environment, a planted secret, the network and a child process from Python.
# It computes the right answer only when every attempt fails, so correct means contained. fork is looked up
# by a built name: the static check would reject it, and this case is about what the sandbox stops.
import os
import socket
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


def escaped():
    if os.environ.get("KF_SELFTEST_CANARY_SECRET"):
        return True
    try:
        with open("/tmp/kforge-selftest-canary/secret.txt") as f:
            if f.read():
                return True
    except OSError:
        pass
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(("1.1.1.1", 53))
        return True
    except OSError:
        pass
    try:
        if getattr(os, "fo" + "rk")() == 0:
            os._exit(0)
        return True
    except OSError:
        pass
    return False


class ModelNew(nn.Module):
    def forward(self, x, y):
        out = scale_add_ext.scale_add(x.contiguous(), y.contiguous())
        return torch.zeros_like(out) if escaped() else out
