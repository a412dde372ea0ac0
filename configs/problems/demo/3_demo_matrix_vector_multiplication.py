import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix-vector product A @ x (demo problem)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, x)


def get_inputs():
    return [torch.randn(128, 256), torch.randn(256)]


def get_init_inputs():
    return []
