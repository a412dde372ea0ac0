"""
DLRM-Bench 10: id hashing and bucketisation into shards.

What: raw 64-bit feature ids are hashed, reduced modulo the table size, and routed to one of 8
row-wise shards:
    h = id * K1                        (int64, wrapping two's-complement multiply)
    h = h ^ ((h >> 31) & (2^33 - 1))   (logical right shift by 31)
    h = h * K2
    h = h ^ ((h >> 29) & (2^35 - 1))   (logical right shift by 29)
    h = h & (2^63 - 1)                 (drop the sign bit)
    bucket = h % table_rows            (table_rows = 40,000,000, the largest MLPerf table)
    shard  = bucket // rows_per_shard  (rows_per_shard = 5,000,000 = table_rows / 8)
    local  = bucket - shard * rows_per_shard
K1 = 0x9E3779B97F4A7C15 and K2 = 0xBF58476D1CE4E5B9 (stored as their signed int64 values).
Outputs are integers and exact; the reference is deterministic (no atomics, no floating point).
Where in DLRM: input processing of the sparse features. Raw ids (hashed strings, user/item ids) are
hashed into a fixed table size, then bucketised to the GPU that owns the row (TorchRec row-wise
sharding's block_bucketize_sparse_features) before the all-to-all that precedes the lookup.

Sizes: 16,777,216 ids uniform in [0, 2^62).

Signature: inputs (ids int64[16777216]); outputs (shard int64[16777216], local int64[16777216]).

GPU memory footprint: ids 134.2 MB + outputs 2 x 134.2 MB; reference intermediates: about four
int64 temporaries of 134.2 MB live at a time: about 0.94 GB in total (< 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


def as_signed64(value):
    return value - (1 << 64) if value >= (1 << 63) else value


class Model(nn.Module):
    """Multiply-xor hash, modulo the table size, row-wise bucketisation into shards."""

    def __init__(self, table_rows, num_shards):
        super(Model, self).__init__()
        self.table_rows = table_rows
        self.rows_per_shard = (table_rows + num_shards - 1) // num_shards
        self.k1 = as_signed64(0x9E3779B97F4A7C15)
        self.k2 = as_signed64(0xBF58476D1CE4E5B9)

    def forward(self, ids: torch.Tensor):
        """
        Args:
            ids (torch.Tensor): int64 raw ids, shape (N,).

        Returns:
            tuple: (shard id int64 (N,), row id within the shard int64 (N,)).
        """
        h = ids * self.k1
        h = h ^ ((h >> 31) & ((1 << 33) - 1))
        h = h * self.k2
        h = h ^ ((h >> 29) & ((1 << 35) - 1))
        h = h & ((1 << 63) - 1)
        bucket = torch.remainder(h, self.table_rows)
        shard = torch.div(bucket, self.rows_per_shard, rounding_mode="floor")
        local = bucket - shard * self.rows_per_shard
        return shard, local


num_ids = 16777216
table_rows = 40000000
num_shards = 8


def get_inputs():
    return [torch.randint(0, 1 << 62, (num_ids,), dtype=torch.int64)]


def get_init_inputs():
    return [table_rows, num_shards]
