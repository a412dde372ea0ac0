# Roofline test problem: a batched matmul, 4 x (8x16 @ 16x12) (2*4*8*16*12 FLOPs).
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.rand(4, 8, 16), torch.rand(4, 16, 12)]


def get_init_inputs():
    return []
