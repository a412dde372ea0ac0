import torch
import torch.nn as nn


class Model(nn.Module):
    """out = 2 * x + y (adversarial suite)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return 2 * x + y


def get_inputs():
    return [torch.randn(256, 128), torch.randn(256, 128)]


def get_init_inputs():
    return []
