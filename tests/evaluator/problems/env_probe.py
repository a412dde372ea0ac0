import os

import torch
import torch.nn as nn

# The oracle runs this file's code: it must not see kforge's credentials.
_leaked = sorted(name for name, value in os.environ.items() if "kforge-test-secret" in value)
if _leaked:
    raise RuntimeError("the oracle sees credentials: " + ", ".join(_leaked))


class Model(nn.Module):
    """out = 2 * x + y, in a file that checks the oracle's environment."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return 2 * x + y


def get_inputs():
    return [torch.randn(64, 32), torch.randn(64, 32)]


def get_init_inputs():
    return []
