# Roofline test problem: C = A @ B, A 64x32, B 32x16 (2*64*32*16 FLOPs).
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.rand(64, 32), torch.rand(32, 16)]


def get_init_inputs():
    return []
