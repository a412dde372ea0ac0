"""
DLRM-Bench 1: EmbeddingBag, sum pooling, variable bag lengths.

What: out[b] = sum_{j in [offsets[b], offsets[b+1])} weight[indices[j]]  (an empty bag gives zeros).
Where in DLRM: the sparse-feature path. Every categorical feature of a sample is a "bag" of ids; the
embedding tables are looked up and pooled per bag before the feature interaction. This is the single most
time-consuming operator class of production recommenders (memory-bound random row gathers).

Sizes: table 1,000,000 x 128 fp32 (nn.EmbeddingBag default init N(0, 1)); batch 65,536 bags; 1,310,720
ids in total (mean bag length 20), cut into bags at random points, so bag lengths vary (empty bags
occur); the total is fixed so that every seed gives the same shapes. offsets has batch+1 entries
(include_last_offset=True): bag b is indices[offsets[b]:offsets[b+1]], offsets[0] = 0,
offsets[-1] = len(indices). indices and offsets are int64.

Signature: inputs (indices int64[1310720], offsets int64[65537], embedding_bag.weight fp32[1000000, 128]);
output fp32[65536, 128].

GPU memory footprint (fp32): weight 512.0 MB + indices 10.5 MB + offsets 0.5 MB + output 33.6 MB;
the reference has no large intermediates: about 557 MB in total (0.56 GB < 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Sum-pooled embedding bag over one large table."""

    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.embedding_bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum",
                                             include_last_offset=True)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids of all bags, concatenated, shape (total_ids,).
            offsets (torch.Tensor): int64 start of each bag plus the end, shape (batch_size + 1,).

        Returns:
            torch.Tensor: pooled embeddings, shape (batch_size, embedding_dim).
        """
        return self.embedding_bag(indices, offsets)


num_embeddings = 1000000
embedding_dim = 128
batch_size = 65536
total_ids = batch_size * 20


def random_offsets(num_bags, total):
    # Random cut points give variable bag lengths with a fixed total (fixed shapes for every seed).
    cuts = torch.randint(0, total + 1, (num_bags - 1,)).sort().values
    first = torch.zeros(1, dtype=torch.int64)
    last = torch.full((1,), total, dtype=torch.int64)
    return torch.cat([first, cuts, last])


def get_inputs():
    indices = torch.randint(0, num_embeddings, (total_ids,))
    offsets = random_offsets(batch_size, total_ids)
    return [indices, offsets]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
