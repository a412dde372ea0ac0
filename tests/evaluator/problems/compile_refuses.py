# A reference torch.compile cannot compile: this problem points inductor's C++ compiler at a program that does
# not exist (as a broken toolchain would), so the compiled reference fails to build while eager runs it fine.
# The evaluation must still judge and time the candidate, and say so in the verdict's compile baseline.
import torch

try:
    import torch._inductor.config as inductor_config
    inductor_config.cpp.cxx = ("/nonexistent/kforge-test-no-compiler",)
except Exception:  # a torch without inductor cannot compile either
    pass


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
