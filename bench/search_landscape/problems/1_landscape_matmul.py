import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B on 128 x 128 matrices (search landscape: bench/search_landscape/README.md)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(128, 128), torch.randn(128, 128)]


def get_init_inputs():
    return []
