import torch
import torch.nn as nn

# get_inputs() depends on how often it has been called, so a seed does not name its inputs: the oracle must
# keep copies of timed slots' inputs instead of drawing them again.
_draws = [0]


class Model(nn.Module):
    """out = 2 * x + y, as scale_add.py, with inputs that a seed does not repeat."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return 2 * x + y


def get_inputs():
    _draws[0] += 1
    return [torch.randn(64, 32) + _draws[0], torch.randn(64, 32)]


def get_init_inputs():
    return []
