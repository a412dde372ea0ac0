"""Audit test problem: two outputs, one floating and one integer (int64 argmax)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor):
        return x * 2.0 + 1.0, torch.argmax(x, dim=1)


def get_inputs():
    return [torch.randn(64, 32)]


def get_init_inputs():
    return []
