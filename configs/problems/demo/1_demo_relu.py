import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU on a small tensor (demo problem: fast on a CPU with the host backend)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(128, 256)]


def get_init_inputs():
    return []
