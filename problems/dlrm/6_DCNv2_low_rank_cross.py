"""
DLRM-Bench 6: DCN-v2 low-rank cross network (3 layers).

What: x_0 = input; for l = 0, 1, 2:
          x_{l+1} = x_0 * (U_l (V_l x_l) + b_l) + x_l
      with V_l: 3456 -> 512 (no bias) and U_l: 512 -> 3456 (bias b_l); output x_3.
Where in DLRM: MLPerf DLRM-DCNv2 replaces the dot interaction by a DCN-v2 cross network over the
concatenation of the dense vector and the 26 pooled embeddings (27 x 128 = 3456 features); the
low-rank factorisation (rank 512) is what MLPerf uses. Two thin GEMMs and an element-wise epilogue per
layer.

Sizes: batch 8,192, input 3,456, rank 512, 3 layers; nn.Linear default init; input ~N(0, 1).

Signature: inputs (x fp32[8192, 3456], then per layer l: down.l.weight fp32[512, 3456],
up.l.weight fp32[3456, 512], up.l.bias fp32[3456], in state_dict order); output fp32[8192, 3456].

GPU memory footprint (fp32): input 113.2 MB + parameters 3 x 14.2 MB = 42.5 MB + output 113.2 MB;
reference intermediates per layer: low-rank 16.8 MB, up-projection 113.2 MB, product 113.2 MB
(about two layers' worth live at once): about 0.62 GB in total (< 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Low-rank DCN-v2 cross layers x_{l+1} = x_0 * (U (V x_l) + b) + x_l."""

    def __init__(self, input_dim, rank, num_layers):
        super(Model, self).__init__()
        self.down = nn.ModuleList([nn.Linear(input_dim, rank, bias=False) for _ in range(num_layers)])
        self.up = nn.ModuleList([nn.Linear(rank, input_dim, bias=True) for _ in range(num_layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): concatenated dense and sparse features, shape (batch_size, input_dim).

        Returns:
            torch.Tensor: crossed features, shape (batch_size, input_dim).
        """
        x0 = x
        for down, up in zip(self.down, self.up):
            x = x0 * up(down(x)) + x
        return x


batch_size = 8192
input_dim = 3456
rank = 512
num_layers = 3


def get_inputs():
    return [torch.randn(batch_size, input_dim)]


def get_init_inputs():
    return [input_dim, rank, num_layers]
