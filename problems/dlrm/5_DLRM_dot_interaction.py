"""
DLRM-Bench 5: DLRM dot-product feature interaction.

What: T = concat([dense[:, None, :], sparse], dim=1)          (B, F = 27, D)
      Z = T @ T^T                                               (B, 27, 27)
      out = concat([dense, Z[:, i, j] for the strictly lower triangle (i > j), row-major], dim=1)
The strictly-lower-triangle pairs are taken in torch.tril_indices(27, 27, offset=-1) order:
(1,0), (2,0), (2,1), (3,0), ... - 351 pairwise dot products per sample.
Where in DLRM: the interaction layer between the bottom MLP / embedding lookups and the top MLP
(Naumov et al. 2019, "interaction_op = dot"). Its output is the top MLP's input.

Sizes: batch 16,384; 26 sparse features plus the dense feature vector, D = 128; inputs ~N(0, 1).

Signature: inputs (dense fp32[16384, 128], sparse fp32[16384, 26, 128]); output fp32[16384, 479].

GPU memory footprint (fp32): dense 8.4 MB + sparse 218.1 MB + output 31.4 MB; reference intermediates:
T 226.5 MB, Z 47.8 MB, gathered triangle 23.0 MB: about 555 MB in total (0.56 GB < 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Pairwise dot products of the dense and sparse feature vectors, lower triangle, with the dense passed on."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, dense: torch.Tensor, sparse: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dense (torch.Tensor): bottom-MLP output, shape (batch_size, D).
            sparse (torch.Tensor): pooled embeddings, shape (batch_size, num_sparse, D).

        Returns:
            torch.Tensor: shape (batch_size, D + F * (F - 1) / 2) with F = num_sparse + 1.
        """
        features = torch.cat([dense.unsqueeze(1), sparse], dim=1)
        num_features = features.shape[1]
        products = torch.bmm(features, features.transpose(1, 2))
        rows, cols = torch.tril_indices(num_features, num_features, offset=-1, device=dense.device)
        return torch.cat([dense, products[:, rows, cols]], dim=1)


batch_size = 16384
num_sparse = 26
embedding_dim = 128


def get_inputs():
    dense = torch.randn(batch_size, embedding_dim)
    sparse = torch.randn(batch_size, num_sparse, embedding_dim)
    return [dense, sparse]


def get_init_inputs():
    return []
