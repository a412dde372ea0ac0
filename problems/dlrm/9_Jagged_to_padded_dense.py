"""
DLRM-Bench 9: jagged to padded dense.

What: a jagged tensor (values of all sequences concatenated, plus offsets) becomes a dense
(batch, max_length, D) tensor: out[b, p] = values[offsets[b] + p] for p < min(length_b, max_length),
and 0 elsewhere (sequences longer than max_length are truncated), as
fbgemm.jagged_to_padded_dense(values, [offsets], [max_length], padding_value=0).
Where in DLRM-style models: user-history / sequence features (TorchRec KeyedJaggedTensor values) are
padded to a fixed length before attention or pooling layers (e.g. DIN, transformers over behaviour
sequences). A pure data-movement kernel whose cost is the padded output write.

Sizes: batch 2,048, max_length 512, D = 128; 524,288 values in total (mean length 256) cut at random
points, so lengths vary (exponential-like; about 13% are truncated at 512, some are empty); the total is
fixed so shapes are the same for every seed. values ~N(0, 1); offsets int64 with batch+1 entries.

Signature: inputs (values fp32[524288, 128], offsets int64[2049]); output fp32[2048, 512, 128].

GPU memory footprint (fp32): values 268.4 MB + offsets 16 KB + output 536.9 MB; reference
intermediates: sequence id, position and mask per value 3 x 4.2 MB + 0.5 MB, kept values up to 268.4 MB
and their indices 2 x 4.2 MB: about 1.09 GB in total (< 4 GB).
"""
import torch
import torch.nn as nn

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Pads (and truncates) a jagged batch of sequences to a dense tensor."""

    def __init__(self, max_length):
        super(Model, self).__init__()
        self.max_length = max_length

    def forward(self, values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            values (torch.Tensor): all sequences' rows concatenated, shape (total, D).
            offsets (torch.Tensor): int64 sequence starts plus the end, shape (batch_size + 1,).

        Returns:
            torch.Tensor: shape (batch_size, max_length, D), zero-padded.
        """
        batch = offsets.shape[0] - 1
        lengths = offsets[1:] - offsets[:-1]
        sequence_of_value = torch.repeat_interleave(
            torch.arange(batch, device=values.device), lengths)
        position = torch.arange(values.shape[0], device=values.device) - offsets[sequence_of_value]
        keep = position < self.max_length
        out = torch.zeros(batch, self.max_length, values.shape[1], dtype=values.dtype,
                          device=values.device)
        out[sequence_of_value[keep], position[keep]] = values[keep]
        return out


batch_size = 2048
max_length = 512
embedding_dim = 128
total_values = batch_size * 256


def random_offsets(num_sequences, total):
    # Random cut points give variable lengths with a fixed total (fixed shapes for every seed).
    cuts = torch.randint(0, total + 1, (num_sequences - 1,)).sort().values
    first = torch.zeros(1, dtype=torch.int64)
    last = torch.full((1,), total, dtype=torch.int64)
    return torch.cat([first, cuts, last])


def get_inputs():
    values = torch.randn(total_values, embedding_dim)
    offsets = random_offsets(batch_size, total_values)
    return [values, offsets]


def get_init_inputs():
    return [max_length]
