import torch
import torch.nn as nn


class Model(nn.Module):
    """y = relu(x) on signed inputs (adversarial suite, kernelbench cases)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(256, 128)]


def get_init_inputs():
    return []
