# Roofline test problem: an element-wise op (ReLU) on 1000 elements.
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1000)]


def get_init_inputs():
    return []
