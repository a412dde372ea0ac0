"""Audit test problem: a reference of magnitude ~1e-3, so all zeros pass allclose(atol=rtol=1e-2)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x) * 1e-3


def get_inputs():
    return [torch.rand(64, 32) + 0.5]


def get_init_inputs():
    return []
