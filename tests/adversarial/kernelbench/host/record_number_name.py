# Rewrites the build recorder's call file after the recorder wrote it (a thread that outlives the import):
# a number where the extension's name belongs, an object where a list of sources does.
import json
import threading
import time
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


def overwrite():
    time.sleep(0.3)
    with open("calls.json", "w") as fh:
        json.dump({"calls": [{"name": 5, "cpp_sources": {"a": 1}, "functions": {"f": 3},
                              "is_python_module": "yes", "with_pytorch_error_handling": []}]}, fh)


threading.Thread(target=overwrite).start()


class ModelNew(nn.Module):
    def forward(self, x, y):
        return scale_add_ext.scale_add(x.contiguous(), y.contiguous())
