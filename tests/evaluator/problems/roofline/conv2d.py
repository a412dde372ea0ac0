# Roofline test problem: a 3x3 convolution without bias, 3 -> 8 channels on 2x3x10x12 (output 2x8x8x10):
# 2 * (2*8*8*10) * (3*3*3) FLOPs; the weight (8x3x3x3) is part of the model's state.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 3, 10, 12)]


def get_init_inputs():
    return []
