import torch
import torch.nn as nn


class Model(nn.Module):
    """relu(x @ W^T + b), a 256 -> 256 Linear layer on a batch of 32 (search landscape: bench/search_landscape/README.md)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(32, 256)]


def get_init_inputs():
    return [256, 256]
