import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B with all-positive torch.rand inputs (as KernelBench level 1 problem 1): A (64, 512), B (512, 48)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.rand(64, 512), torch.rand(512, 48)]


def get_init_inputs():
    return []
