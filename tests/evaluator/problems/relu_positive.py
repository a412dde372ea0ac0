import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU of non-negative inputs, like KernelBench level 1 problem 19 (torch.rand): on the problem's own
    inputs the output equals the input, so "input passed through" is right there and only the other
    input variants can tell it from an honest kernel."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.rand(64, 256)]


def get_init_inputs():
    return []
