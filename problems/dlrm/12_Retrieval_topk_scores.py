"""
DLRM-Bench 12: retrieval top-k scores.

What: scores = queries @ items^T (inner-product similarity), then the k = 100 largest scores of each
query, in descending order (values only - with ties the indices would be ambiguous):
    out = torch.topk(queries @ items.T, k, dim=1).values
Where in DLRM-style systems: the candidate-retrieval stage of a two-tower recommender (user tower
output vs. the item-embedding corpus) that precedes the DLRM ranking model; brute-force maximum inner
product search. A fused GEMM + per-row top-k avoids materialising the score matrix.

Sizes: 1,024 queries x 262,144 items, D = 128, fp32, entries ~N(0, 1); k = 100 (a constructor
argument). The reference is computed with TF32 disabled.

Signature: inputs (queries fp32[1024, 128], items fp32[262144, 128]); output fp32[1024, 100].

GPU memory footprint (fp32): queries 0.5 MB + items 134.2 MB + output 0.4 MB; reference
intermediates: the score matrix 1073.7 MB plus top-k workspace (at most one more score-sized buffer):
about 2.3 GB at the very most (< 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Brute-force inner-product retrieval returning the top-k scores per query."""

    def __init__(self, k):
        super(Model, self).__init__()
        self.k = k

    def forward(self, queries: torch.Tensor, items: torch.Tensor) -> torch.Tensor:
        """
        Args:
            queries (torch.Tensor): shape (num_queries, D).
            items (torch.Tensor): shape (num_items, D).

        Returns:
            torch.Tensor: top-k scores per query, descending, shape (num_queries, k).
        """
        scores = queries @ items.T
        return torch.topk(scores, self.k, dim=1, largest=True, sorted=True).values


num_queries = 1024
num_items = 262144
embedding_dim = 128
k = 100


def get_inputs():
    return [torch.randn(num_queries, embedding_dim), torch.randn(num_items, embedding_dim)]


def get_init_inputs():
    return [k]
