# Missing package: a TileLang solution where the runner's python has no tilelang.
import tilelang
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline



class ModelNew(nn.Module):
    def forward(self, x, y):
        return 2 * x + y
