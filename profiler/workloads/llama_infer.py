"""Llama-style decoder inference, prefill then greedy decode with a preallocated KV cache: RMSNorm, rotary
embeddings, grouped-query attention, SwiGLU; bf16; random weights. --size 1b (Llama-3.2-1B-shaped) or 8b
(Llama-3-8B-shaped)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

import kforge_workload as kw

SIZES = {
    # dim, layers, heads, kv heads, ffn, vocab
    "1b": (2048, 16, 32, 8, 8192, 128256),
    "8b": (4096, 32, 32, 8, 14336, 128256),
    "smoke": (64, 2, 4, 2, 128, 1000),
}


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


def rope_tables(head_dim, max_len, device, theta=500000.0):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    f = torch.outer(torch.arange(max_len, device=device).float(), inv)
    return f.cos(), f.sin()


def apply_rope(x, cos, sin):  # x: b, h, t, hd
    x1, x2 = x[..., ::2].float(), x[..., 1::2].float()
    c, s = cos[None, None], sin[None, None]
    out = torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2)
    return out.to(x.dtype)


class Layer(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.attn_norm = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wkv = nn.Linear(d, 2 * kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.ffn_norm = RMSNorm(d)
        self.w13 = nn.Linear(d, 2 * ffn, bias=False)
        self.w2 = nn.Linear(ffn, d, bias=False)

    def forward(self, x, pos, cos, sin, cache_k, cache_v):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k, v = self.wkv(h).view(b, t, 2, self.kv_heads, self.hd).permute(2, 0, 3, 1, 4)
        q, k = apply_rope(q, cos[pos:pos + t], sin[pos:pos + t]), apply_rope(k, cos[pos:pos + t], sin[pos:pos + t])
        cache_k[:, :, pos:pos + t] = k
        cache_v[:, :, pos:pos + t] = v
        keys, values = cache_k[:, :, :pos + t], cache_v[:, :, :pos + t]
        y = F.scaled_dot_product_attention(q, keys, values, is_causal=t > 1, enable_gqa=True)
        x = x + self.wo(y.transpose(1, 2).reshape(b, t, d))
        g, u = self.w13(self.ffn_norm(x)).chunk(2, dim=-1)
        return x + self.w2(F.silu(g) * u)


class Llama(nn.Module):
    def __init__(self, d, layers, heads, kv_heads, ffn, vocab):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.out = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens, pos, cos, sin, caches):
        x = self.emb(tokens)
        for layer, (ck, cv) in zip(self.layers, caches):
            x = layer(x, pos, cos, sin, ck, cv)
        return self.out(self.norm(x[:, -1:]))


def main():
    p = kw.base_parser(__doc__)
    p.add_argument("--size", choices=["1b", "8b"], default="1b")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--prompt", type=int, default=512)
    p.add_argument("--new-tokens", type=int, default=32)
    args = p.parse_args()
    dev = kw.device_for(args)
    torch.manual_seed(args.seed)
    size = "smoke" if args.smoke else args.size
    d, layers, heads, kv_heads, ffn, vocab = SIZES[size]
    batch, prompt, new = (2, 16, 4) if args.smoke else (args.batch, args.prompt, args.new_tokens)
    dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32
    # Build on the device itself: an 8B model initialised on the CPU would take minutes.
    with torch.device(dev):
        model = Llama(d, layers, heads, kv_heads, ffn, vocab).to(dev, dtype).eval()
    hd = d // heads
    cos, sin = rope_tables(hd, prompt + new, dev)
    caches = [(torch.empty(batch, kv_heads, prompt + new, hd, device=dev, dtype=dtype),
               torch.empty(batch, kv_heads, prompt + new, hd, device=dev, dtype=dtype)) for _ in range(layers)]
    prompts = torch.randint(0, vocab, (batch, prompt), device=dev)

    @torch.no_grad()
    def step():  # one request batch: prefill the prompt, then decode `new` tokens greedily
        logits = model(prompts, 0, cos, sin, caches)
        tok = logits.argmax(-1)
        for i in range(new - 1):
            logits = model(tok, prompt + i, cos, sin, caches)
            tok = logits.argmax(-1)

    kw.run(f"llama-{args.size}-infer", args, step, args.warmup or 1, args.steps or 3,
           {"batch": batch, "prompt": prompt, "new_tokens": new,
            "params_b": sum(p.numel() for p in model.parameters()) / 1e9})


if __name__ == "__main__":
    main()
