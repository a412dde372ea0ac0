import torch
import torch.nn as nn


class Model(nn.Module):
    """2 * x + y on inputs that ignore the seed: no timed round can get fresh values (inputs_repeated)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return 2 * x + y


def get_inputs():
    x = torch.linspace(-1, 1, 64 * 32).reshape(64, 32)
    return [x, x.flip(0) * 0.5]


def get_init_inputs():
    return []
