"""
DLRM-Bench 3: multi-table batched embedding lookup (26 tables, MLPerf-like pooling factors, D=64).

What: a "table-batched embedding" (TBE) operator, as in FBGEMM/TorchRec: all 26 tables are stored in one
weight tensor (table t occupies rows [table_row_offsets[t], table_row_offsets[t] + rows_t)), and one
call pools every (table, sample) bag:
    bag (t, b) = indices[offsets[t*B + b] : offsets[t*B + b + 1]]      (ids local to table t)
    out[b, t*D:(t+1)*D] = sum_{i in bag (t, b)} weight[table_row_offsets[t] + i]
Ids and offsets are flat and table-major (all bags of table 0, then table 1, ...), as TBE takes them.
Where in DLRM: the whole sparse arm of a DLRM (MLPerf DLRM-DCNv2 on multi-hot Criteo has 26 categorical
features); the output, one 64-wide vector per feature, feeds the interaction layer.

Sizes: 26 tables with MLPerf DLRM-DCNv2's row counts capped at 500,000 rows (to stay under 4 GB):
4,026,480 rows x 64 fp32 in total; MLPerf's multi-hot pooling factors
[3,2,1,2,6,1,1,1,1,7,3,8,1,6,9,5,1,1,1,12,100,27,10,3,1,1] (214 ids per sample); batch 16,384;
3,506,176 ids. Table weights use TorchRec's default init, uniform(+-sqrt(1/rows_t)) - so the pooled
values of large tables are small (about 1e-3), which is realistic and matters for tolerance checks.
Ids uniform within each table. indices, offsets and table_row_offsets are int64.

Signature: inputs (indices int64[3506176], offsets int64[425985], weights fp32[4026480, 64],
table_row_offsets int64[26]); output fp32[16384, 1664].

GPU memory footprint (fp32): weights 1030.8 MB + indices 28.0 MB + offsets 3.4 MB + output 109.1 MB;
reference intermediates: lengths and table-of-bag 6.8 MB, table-of-id, row-offset gather and global ids
3 x 28.0 MB, pooled (table-major) 109.1 MB: about 1.37 GB in total (< 4 GB).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Table-batched sum-pooled embedding lookup over 26 tables stored in one weight tensor."""

    def __init__(self, table_rows, embedding_dim):
        super(Model, self).__init__()
        self.num_tables = len(table_rows)
        self.embedding_dim = embedding_dim
        blocks = []
        for rows in table_rows:
            bound = math.sqrt(1.0 / rows)
            blocks.append(torch.rand(rows, embedding_dim) * (2 * bound) - bound)
        self.weights = nn.Parameter(torch.cat(blocks))
        starts = [0]
        for rows in table_rows[:-1]:
            starts.append(starts[-1] + rows)
        self.register_buffer("table_row_offsets", torch.tensor(starts, dtype=torch.int64))

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 table-local ids, table-major, shape (total_ids,).
            offsets (torch.Tensor): int64 bag starts plus the end, shape (num_tables * batch_size + 1,).

        Returns:
            torch.Tensor: pooled embeddings, shape (batch_size, num_tables * embedding_dim).
        """
        num_bags = offsets.shape[0] - 1
        batch = num_bags // self.num_tables
        lengths = offsets[1:] - offsets[:-1]
        table_of_bag = torch.arange(num_bags, device=indices.device) // batch
        table_of_id = torch.repeat_interleave(table_of_bag, lengths)
        global_ids = indices + self.table_row_offsets[table_of_id]
        pooled = F.embedding_bag(global_ids, self.weights, offsets, mode="sum",
                                 include_last_offset=True)
        return (pooled.view(self.num_tables, batch, self.embedding_dim)
                .transpose(0, 1).reshape(batch, self.num_tables * self.embedding_dim))


# MLPerf DLRM-DCNv2 (Criteo multi-hot) table sizes and pooling factors; rows capped at row_cap.
mlperf_table_rows = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956,
                     405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152,
                     12973, 108, 36]
pooling_factors = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
row_cap = 500000
embedding_dim = 64
batch_size = 16384


def table_rows():
    return [min(rows, row_cap) for rows in mlperf_table_rows]


def get_inputs():
    ids = [torch.randint(0, rows, (batch_size * factor,))
           for rows, factor in zip(table_rows(), pooling_factors)]
    indices = torch.cat(ids)
    lengths = torch.cat([torch.full((batch_size,), factor, dtype=torch.int64)
                         for factor in pooling_factors])
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    return [indices, offsets]


def get_init_inputs():
    return [table_rows(), embedding_dim]
