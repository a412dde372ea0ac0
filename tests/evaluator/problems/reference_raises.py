import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise ValueError("this reference is broken on purpose")


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    return []
