# Torch fallback in C++ kept as hex text and decoded before load_inline: the static check sees no C++, the
# extension kforge builds from the decoded source imports at::relu.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ENCODED = "23696e636c756465203c746f7263682f657874656e73696f6e2e683e0a746f7263683a3a54656e736f722072656c755f666f727761726428746f7263683a3a54656e736f72207829207b2072657475726e2061743a3a72656c752878293b207d0a"

relu_ext = load_inline(name="kf_selftest_relu_encoded", cpp_sources=bytes.fromhex(ENCODED).decode(),
                       functions=["relu_forward"])


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_ext.relu_forward(x.contiguous())
