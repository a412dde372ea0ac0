"""DLRM with a DCNv2 interaction (MLPerf DLRM-DCNv2-like): 13 dense features, 26 multi-hot sparse features
through EmbeddingBag (sum) of dimension 128, bottom MLP 512-256-128, three low-rank (512) cross layers, top
MLP 1024-1024-512-256-1. Table sizes are MLPerf's Criteo-1TB cardinalities capped at --max-rows so that the
tables fit one GPU. --mode train: BCE loss, sparse embedding gradients, SGD; --mode infer: forward only.
Random weights and inputs, nothing downloaded."""
import torch
import torch.nn as nn
import torch.nn.functional as F

import kforge_workload as kw

CARDINALITIES = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209,
                 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]


def mlp(sizes, last_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class CrossNetV2(nn.Module):
    """x_{l+1} = x0 * (U_l (V_l x_l) + b_l) + x_l, low rank."""

    def __init__(self, dim, layers, rank):
        super().__init__()
        self.v = nn.ModuleList(nn.Linear(dim, rank, bias=False) for _ in range(layers))
        self.u = nn.ModuleList(nn.Linear(rank, dim) for _ in range(layers))

    def forward(self, x0):
        x = x0
        for v, u in zip(self.v, self.u):
            x = x0 * u(v(x)) + x
        return x


class DLRM(nn.Module):
    def __init__(self, rows, dim, sparse_grad):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(r, dim, mode="sum", sparse=sparse_grad) for r in rows)
        self.bottom = mlp([13, 512, 256, dim])
        inter = dim * (len(rows) + 1)
        self.cross = CrossNetV2(inter, 3, 512)
        self.top = mlp([inter, 1024, 1024, 512, 256, 1], last_act=False)

    def forward(self, dense, indices, offsets):
        feats = [self.bottom(dense)]
        for table, idx, off in zip(self.tables, indices, offsets):
            feats.append(table(idx, off))
        return self.top(self.cross(torch.cat(feats, dim=1))).squeeze(1)


def make_batch(batch, rows, hots, dev, gen):
    dense = torch.rand(batch, 13, device=dev, generator=gen)
    indices, offsets = [], []
    for r, h in zip(rows, hots):
        indices.append(torch.randint(0, r, (batch * h,), device=dev, generator=gen))
        offsets.append(torch.arange(0, batch * h, h, device=dev))
    labels = torch.randint(0, 2, (batch,), device=dev, generator=gen).float()
    return dense, indices, offsets, labels


def main():
    p = kw.base_parser(__doc__)
    p.add_argument("--mode", choices=["train", "infer"], default="train")
    p.add_argument("--batch", type=int, default=None)
    p.add_argument("--max-rows", type=int, default=4_000_000)
    args = p.parse_args()
    dev = kw.device_for(args)
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if args.smoke:
        rows, dim, hots, batch = [min(r, 1000) for r in CARDINALITIES], 16, [min(h, 4) for h in MULTI_HOT], 64
    else:
        rows, dim, hots = [min(r, args.max_rows) for r in CARDINALITIES], 128, MULTI_HOT
        batch = args.batch or (16384 if args.mode == "train" else 65536)
    train = args.mode == "train"
    with torch.device(dev):
        model = DLRM(rows, dim, sparse_grad=train).to(dev)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    batches = [make_batch(batch, rows, hots, dev, gen) for _ in range(4)]
    it = [0]
    if train:
        dense_params = [p for n, p in model.named_parameters() if not n.startswith("tables.")]
        opt_dense = torch.optim.SGD(dense_params, lr=0.005)
        opt_sparse = torch.optim.SGD(model.tables.parameters(), lr=0.005, foreach=False)

        def step():
            dense, indices, offsets, labels = batches[it[0] % len(batches)]
            it[0] += 1
            loss = F.binary_cross_entropy_with_logits(model(dense, indices, offsets), labels)
            loss.backward()
            opt_dense.step()
            opt_sparse.step()
            opt_dense.zero_grad(set_to_none=True)
            opt_sparse.zero_grad(set_to_none=True)
    else:
        model.eval()

        @torch.no_grad()
        def step():
            dense, indices, offsets, _ = batches[it[0] % len(batches)]
            it[0] += 1
            torch.sigmoid(model(dense, indices, offsets))

    kw.run(f"dlrm-dcnv2-{args.mode}", args, step, args.warmup or 3, args.steps or 10,
           {"batch": batch, "embedding_rows": sum(rows), "embedding_dim": dim,
            "embedding_gib": sum(rows) * dim * 4 / 2**30})


if __name__ == "__main__":
    main()
