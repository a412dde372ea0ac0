"""Audit test problem whose reference raises: the audit must name the file and the cause."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise ValueError("this reference is broken on purpose")


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
