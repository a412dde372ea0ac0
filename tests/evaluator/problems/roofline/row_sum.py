# Roofline test problem: a reduction, the sum of each row of a 32x50 matrix.
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(32, 50)]


def get_init_inputs():
    return []
