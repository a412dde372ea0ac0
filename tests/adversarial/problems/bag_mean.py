"""Mean-pooled embedding bag whose number of ids depends on the seed (as DLRM-Bench 13): table 500 x 8,
batch 32, bag lengths uniform in [0, 6]. Its timed rounds keep a trial's shapes with new values."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="mean", include_last_offset=True)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.bag(indices, offsets)


def get_inputs():
    lengths = torch.randint(0, 7, (32,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    return [torch.randint(0, 500, (int(offsets[-1]),)), offsets]


def get_init_inputs():
    return [500, 8]
