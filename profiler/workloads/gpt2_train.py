"""GPT-2 small (124M) training step: bf16 autocast, FlashAttention through SDPA, fused AdamW. Random weights
and tokens, nothing downloaded."""
import torch
import torch.nn as nn
import torch.nn.functional as F

import kforge_workload as kw


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, ctx, d, layers, heads):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as in GPT-2

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main():
    args = kw.base_parser(__doc__).parse_args()
    dev = kw.device_for(args)
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    if args.smoke:
        vocab, ctx, d, layers, heads, batch = 1000, 64, 64, 2, 4, 2
    else:
        vocab, ctx, d, layers, heads, batch = 50257, 1024, 768, 12, 12, 16
    model = GPT(vocab, ctx, d, layers, heads).to(dev)
    fused = dev.type == "cuda"
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, **({"fused": True} if fused else {}))
    data = torch.randint(0, vocab, (4, batch, ctx + 1), device=dev)
    it = [0]

    def step():
        tokens = data[it[0] % data.shape[0]]
        it[0] += 1
        with kw.autocast(dev):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.float().view(-1, vocab), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    kw.run("gpt2-small-train", args, step, args.warmup or 3, args.steps or 10,
           {"batch": batch, "seq": ctx, "params_m": sum(p.numel() for p in model.parameters()) / 1e6})


if __name__ == "__main__":
    main()
