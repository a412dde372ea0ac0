"""
DLRM-Bench 2: weighted EmbeddingBag with per-sample weights normalised per bag.

What: for bag b with ids j in [offsets[b], offsets[b+1]):
    w'_j = per_sample_weights[j] / sum_{k in bag b} per_sample_weights[k]
    out[b] = sum_j w'_j * weight[indices[j]]          (an empty bag gives zeros)
i.e. a weighted mean of the bag's rows.
Where in DLRM: sparse features that carry a score per id (e.g. a user's history weighted by recency or
dwell time, or id-list features with counts) are pooled with per-id weights; normalising per bag keeps
long and short histories on the same scale. Same memory-bound gather as problem 1 plus a segmented
reduction over the weights.

Sizes: table 1,000,000 x 128 fp32 (init N(0, 1)); batch 65,536 bags; 1,310,720 ids in total (mean bag
length 20) cut at random points (variable lengths, fixed total); per-sample weights uniform in [0.1, 1).
offsets has batch+1 entries (include_last_offset convention). indices and offsets are int64.

Signature: inputs (indices int64[1310720], offsets int64[65537], per_sample_weights fp32[1310720],
weight fp32[1000000, 128]); output fp32[65536, 128].

GPU memory footprint (fp32): weight 512.0 MB + indices 10.5 MB + offsets 0.5 MB + weights 5.2 MB +
output 33.6 MB; reference intermediates: bag id per lookup (int64) 10.5 MB, lengths 0.5 MB, bag sums
0.3 MB, gathered sums 5.2 MB, normalised weights 5.2 MB: about 584 MB in total (0.58 GB < 4 GB).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Weighted-mean embedding bag (per-sample weights normalised within each bag)."""

    def __init__(self, num_embeddings, embedding_dim):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor,
                per_sample_weights: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 row ids, shape (total_ids,).
            offsets (torch.Tensor): int64 bag starts plus the end, shape (batch_size + 1,).
            per_sample_weights (torch.Tensor): one weight per id, shape (total_ids,).

        Returns:
            torch.Tensor: pooled embeddings, shape (batch_size, embedding_dim).
        """
        num_bags = offsets.shape[0] - 1
        lengths = offsets[1:] - offsets[:-1]
        bag_of_id = torch.repeat_interleave(
            torch.arange(num_bags, device=indices.device), lengths)
        bag_sums = torch.zeros(num_bags, dtype=per_sample_weights.dtype, device=indices.device)
        bag_sums.index_add_(0, bag_of_id, per_sample_weights)
        normalised = per_sample_weights / bag_sums[bag_of_id]
        return F.embedding_bag(indices, self.weight, offsets, mode="sum",
                               per_sample_weights=normalised, include_last_offset=True)


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
    per_sample_weights = torch.rand(total_ids) * 0.9 + 0.1
    return [indices, offsets, per_sample_weights]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
