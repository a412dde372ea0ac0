"""
DLRM-Bench 13: EmbeddingBag, mean pooling, bag lengths drawn per sample (seed-dependent shapes).

What: out[b] = mean_{j in [offsets[b], offsets[b+1])} weight[indices[j]]  (an empty bag gives zeros).
Where in DLRM: the sparse-feature path, written the way recommender input pipelines produce it: each
sample's bag length is drawn on its own (torch.randint), offsets are their running sum, and the ids are
drawn for the resulting total. So the number of ids, and the shape of `indices`, changes with the seed:
the jagged pattern of real batches. The only DLRM-Bench problem whose input shapes vary; a kernel must read
the sizes from its tensors on every call (kforge's signature marks `indices` as varying).

Sizes: table 1,000,000 x 128 fp32 (nn.EmbeddingBag default init N(0, 1)); batch 65,536 bags; bag lengths
uniform in [0, 40] (mean 20, empty bags occur), about 1.31M ids in total (it varies by a few thousand
between seeds). offsets has batch+1 entries (include_last_offset=True): bag b is
indices[offsets[b]:offsets[b+1]], offsets[0] = 0, offsets[-1] = len(indices). indices and offsets are int64.

Signature: inputs (indices int64[~1310720, varies], offsets int64[65537], embedding_bag.weight
fp32[1000000, 128]); output fp32[65536, 128].

GPU memory footprint (fp32): weight 512.0 MB + indices ~10.5 MB + offsets 0.5 MB + output 33.6 MB; the
reference has no large intermediates: about 557 MB in total (0.56 GB < 4 GB).
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


num_embeddings = 1000000
embedding_dim = 128
batch_size = 65536
max_bag_length = 40


def get_inputs():
    lengths = torch.randint(0, max_bag_length + 1, (batch_size,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    indices = torch.randint(0, num_embeddings, (int(offsets[-1]),))
    return [indices, offsets]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
