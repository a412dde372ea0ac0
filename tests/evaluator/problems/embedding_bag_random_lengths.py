"""Reduced-size copy of problems/dlrm/13_EmbeddingBag_mean_random_lengths.py for CI: table 1000 x 16,
batch 64, bag lengths uniform in [0, 8]. The number of ids (the shape of indices) depends on the seed.
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Mean-pooled embedding bag over one large table, ragged batch."""

    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding_bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="mean",
                                             include_last_offset=True)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of all bags, concatenated, shape (total_ids,); total_ids
                depends on the drawn bag lengths.
            offsets (torch.Tensor): int64 start of each bag plus the end, shape (batch_size + 1,).

        Returns:
            torch.Tensor: mean-pooled embeddings, shape (batch_size, embedding_dim).
        """
        return self.embedding_bag(indices, offsets)


num_embeddings = 1000
embedding_dim = 16
batch_size = 64
max_bag_length = 8


def get_inputs():
    lengths = torch.randint(0, max_bag_length + 1, (batch_size,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    indices = torch.randint(0, num_embeddings, (int(offsets[-1]),))
    return [indices, offsets]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
