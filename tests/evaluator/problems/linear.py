import torch
import torch.nn as nn


class Model(nn.Module):
    """A Linear layer: its weight and bias reach the candidate as inputs after the forward arguments."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return [16, 4]
