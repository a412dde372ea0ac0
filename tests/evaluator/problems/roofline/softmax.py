# Roofline test problem: softmax over rows of a 16x100 matrix.
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(16, 100)]


def get_init_inputs():
    return []
