"""
DLRM-Bench 11: keyed-tensor regroup (permuted concatenation into feature groups).

What: 26 per-feature tensors f_0 ... f_25, each (B, 128), are regrouped as TorchRec's
KeyedTensor.regroup does: feature order perm[i] = (7 * i + 3) mod 26, the first 10 features of that
order form group 0 and the other 16 form group 1:
    group0 = concat([f_perm[0], ..., f_perm[9]], dim=1)      (B, 1280)
    group1 = concat([f_perm[10], ..., f_perm[25]], dim=1)    (B, 2048)
Where in DLRM: after the embedding lookup, pooled features are regrouped for the consumers that need
them (e.g. separate towers / interaction arches of a multi-task model, or the order expected by the
interaction layer after an all-to-all). Pure data movement: the cost is reading and writing every byte.

Sizes: batch 16,384, 26 features, D = 128, fp32, inputs ~N(0, 1).

Signature: inputs (f0 ... f25, each fp32[16384, 128]); outputs (group0 fp32[16384, 1280],
group1 fp32[16384, 2048]).

GPU memory footprint (fp32): inputs 26 x 8.4 MB = 218.1 MB + outputs 218.1 MB; no other intermediates:
about 436 MB in total (0.44 GB < 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Concatenates the features in a fixed permuted order into two groups."""

    def __init__(self, num_features, group_sizes):
        super(Model, self).__init__()
        self.order = [(7 * i + 3) % num_features for i in range(num_features)]
        self.group_sizes = list(group_sizes)

    def forward(self, *features: torch.Tensor):
        """
        Args:
            *features (torch.Tensor): num_features tensors, each (batch_size, D).

        Returns:
            tuple: one (batch_size, group_size * D) tensor per group.
        """
        groups = []
        start = 0
        for size in self.group_sizes:
            groups.append(torch.cat([features[k] for k in self.order[start:start + size]], dim=1))
            start += size
        return tuple(groups)


batch_size = 16384
num_features = 26
embedding_dim = 128
group_sizes = [10, 16]


def get_inputs():
    return [torch.randn(batch_size, embedding_dim) for _ in range(num_features)]


def get_init_inputs():
    return [num_features, group_sizes]
