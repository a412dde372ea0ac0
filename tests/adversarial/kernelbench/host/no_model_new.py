# Unsupported: no ModelNew (a reference file given as a solution).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline



class Model(nn.Module):
    def forward(self, x, y):
        return 2 * x + y
