import torch
import torch.nn as nn


class Model(nn.Module):
    """A reference tiny in magnitude: all zeros pass torch.allclose(atol=1e-2) here."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x) * 1e-4


def get_inputs():
    return [torch.randn(128, 16)]


def get_init_inputs():
    return []
