import time

import torch
import torch.nn as nn


class Model(nn.Module):
    """out = 2 * x + y, as scale_add.py, with a reference that takes 2 ms a call: a candidate is far faster."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        time.sleep(0.002)
        return 2 * x + y


def get_inputs():
    return [torch.randn(64, 32), torch.randn(64, 32)]


def get_init_inputs():
    return []
