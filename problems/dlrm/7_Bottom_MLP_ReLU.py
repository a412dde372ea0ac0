"""
DLRM-Bench 7: DLRM bottom MLP (13-512-256-128 with ReLU).

What: out = ReLU(L3(ReLU(L2(ReLU(L1(x)))))) with L1: 13 -> 512, L2: 512 -> 256, L3: 256 -> 128
(nn.Linear, with bias; DLRM applies ReLU after every bottom-MLP layer, the last one included).
Where in DLRM: the dense arm. The 13 continuous Criteo features (log-transformed counts) are mapped
to the embedding width (128) so they can interact with the pooled sparse embeddings. A narrow first
layer (K = 13) makes it memory-bound at large batch; fusion of the three layers is the opportunity.

Sizes: batch 131,072; dense features log(1 + c) of counts c uniform in [0, 1000) (0 to ~6.9);
nn.Linear default init.

Signature: inputs (x fp32[131072, 13], then 0.weight fp32[512, 13], 0.bias fp32[512],
2.weight fp32[256, 512], 2.bias fp32[256], 4.weight fp32[128, 256], 4.bias fp32[128]);
output fp32[131072, 128].

GPU memory footprint (fp32): input 6.8 MB + parameters 0.7 MB + output 67.1 MB; reference
intermediates: 268.4 MB (layer 1) + 268.4 MB (its ReLU) + 134.2 MB x 2 (layer 2) + 67.1 MB (layer 3
before ReLU): about 1.08 GB at the peak if nothing is freed early, less in practice (< 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Three Linear + ReLU layers."""

    def __init__(self, layer_sizes):
        super(Model, self).__init__()
        layers = []
        for fan_in, fan_out in zip(layer_sizes[:-1], layer_sizes[1:]):
            layers.append(nn.Linear(fan_in, fan_out))
            layers.append(nn.ReLU())
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): dense features, shape (batch_size, 13).

        Returns:
            torch.Tensor: shape (batch_size, 128).
        """
        return self.mlp(x)


batch_size = 131072
layer_sizes = [13, 512, 256, 128]


def get_inputs():
    counts = torch.randint(0, 1000, (batch_size, layer_sizes[0])).float()
    return [torch.log1p(counts)]


def get_init_inputs():
    return [layer_sizes]
