"""
DLRM-Bench 4: embedding backward fused with a row-wise Adagrad update, as a pure function.

What: given the table, its row-wise Adagrad state, the ids of a batch's lookups and the gradient of each
lookup's output row, compute for every distinct id r (sorted ascending):
    g_r      = sum over lookups j with ids[j] == r of grad_output[j]            (D-vector)
    m_r'     = momentum[r] + mean(g_r ** 2)                                       (one scalar per row)
    w_r'     = weights[r] - lr * g_r / (sqrt(m_r') + eps)
and return (unique ids, updated rows w', updated state m'). Rows that were not looked up are unchanged
and are not returned. lr = 0.01, eps = 1e-8 (module attributes).
Where in DLRM: the backward pass of the sparse arm. FBGEMM fuses the gradient de-duplication (sort /
segment-reduce of the per-lookup gradients) with the optimizer step so the full table is never
materialised as a gradient; row-wise Adagrad (one state value per row) is DLRM's standard sparse
optimizer.

Sizes: table 1,000,000 x 128 fp32 (values uniform(+-1e-3), TorchRec-like init scale), momentum
fp32[1,000,000] uniform in [0, 1); 262,144 lookups over exactly 65,536 distinct rows: every distinct row
is looked up once, and 196,608 more lookups are drawn from the same rows with a Zipf-like skew
(index floor(U^u) - 1 with u uniform, so a few rows are very hot), then shuffled. The number of distinct
ids is fixed, so output shapes are the same for every seed, and sorting makes the output order
deterministic. ids are int64.

Signature: inputs (ids int64[262144], grad_output fp32[262144, 128], weights fp32[1000000, 128],
momentum fp32[1000000]); outputs (unique_ids int64[65536], rows fp32[65536, 128],
state fp32[65536]).

GPU memory footprint (fp32): weights 512.0 MB + momentum 4.0 MB + ids 2.1 MB + grad_output 134.2 MB +
outputs 34.3 MB; reference intermediates: unique/inverse 2.6 MB, summed gradients 33.6 MB, squared
gradients 33.6 MB, gathered rows 33.6 MB and small vectors: about 790 MB in total (0.79 GB < 4 GB).
"""
import math

import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Deduplicated embedding gradient + row-wise Adagrad step on the touched rows."""

    def __init__(self, learning_rate, eps):
        super(Model, self).__init__()
        self.learning_rate = learning_rate
        self.eps = eps

    def forward(self, ids: torch.Tensor, grad_output: torch.Tensor, weights: torch.Tensor,
                momentum: torch.Tensor):
        """
        Args:
            ids (torch.Tensor): int64 row id of each lookup, shape (num_lookups,).
            grad_output (torch.Tensor): gradient of each lookup's row, shape (num_lookups, D).
            weights (torch.Tensor): embedding table, shape (num_rows, D).
            momentum (torch.Tensor): row-wise Adagrad state, shape (num_rows,).

        Returns:
            tuple: (unique ids int64 (U,), updated rows (U, D), updated state (U,)).
        """
        unique_ids, inverse = torch.unique(ids, sorted=True, return_inverse=True)
        grad_sum = torch.zeros(unique_ids.shape[0], grad_output.shape[1],
                               dtype=grad_output.dtype, device=grad_output.device)
        grad_sum.index_add_(0, inverse, grad_output)
        state = momentum[unique_ids] + grad_sum.pow(2).mean(dim=1)
        step = grad_sum / (torch.sqrt(state) + self.eps).unsqueeze(1)
        rows = weights[unique_ids] - self.learning_rate * step
        return unique_ids, rows, state


num_rows = 1000000
embedding_dim = 128
num_distinct = 65536
num_extra_lookups = 196608
learning_rate = 0.01
eps = 1e-8


def get_inputs():
    distinct = torch.randperm(num_rows)[:num_distinct]
    # Zipf-like skew over the distinct rows: rank floor(U^u) - 1 has probability ~ 1/rank.
    u = torch.rand(num_extra_lookups, dtype=torch.float64)
    rank = torch.floor(torch.exp(u * math.log(num_distinct))).to(torch.int64) - 1
    rank = rank.clamp(0, num_distinct - 1)
    ids = torch.cat([distinct, distinct[rank]])
    ids = ids[torch.randperm(ids.shape[0])]
    grad_output = torch.randn(ids.shape[0], embedding_dim)
    weights = (torch.rand(num_rows, embedding_dim) * 2 - 1) * 1e-3
    momentum = torch.rand(num_rows)
    return [ids, grad_output, weights, momentum]


def get_init_inputs():
    return [learning_rate, eps]
