"""KernelBench level 1 problem 53 (min over one dimension of torch.rand inputs) at a reduced size for CI:
[4, 4096, 64] instead of [128, 4096, 4095]. The minimum of 4096 uniform draws is about 1/4096, so an
all-zeros output is within allclose's atol of 1e-2 on every one of KernelBench's own trials, while kforge's
scaled input variants make it visibly wrong."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.min(x, dim=self.dim)[0]


batch_size = 4
dim1 = 4096
dim2 = 64


def get_inputs():
    return [torch.rand(batch_size, dim1, dim2)]


def get_init_inputs():
    return [1]
