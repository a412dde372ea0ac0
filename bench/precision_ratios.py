"""Precision ratios of honest and reduced-precision arithmetic on KernelBench level-1 problems (docs/evaluator.md,
"Precision"): for each problem, its own inputs (get_inputs() on seed 42, cut to a CPU-sized piece), the float32
reference, the float64 reference on the same inputs, and emulated candidates. Prints a Markdown table of
error = ||out - ref64|| / ||ref64||, the float32 reference's own error, and ratio = error / max(ref error, floor)
(the judge's rule: evaluator/judge.h, kPrecisionRatioBound and kPrecisionFloor).

    python3 bench/precision_ratios.py --level1 DIR [--floor 1e-6]
"""
import argparse
import importlib.util
import math
import os

import torch


def load(level1, prefix):
    name = next(f for f in sorted(os.listdir(level1)) if f.startswith(prefix + "_"))
    spec = importlib.util.spec_from_file_location("p" + prefix, os.path.join(level1, name))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return name[:-3], m


def rel(a, r):
    a, r = a.double().reshape(-1), r.double().reshape(-1)
    return float((a - r).norm() / r.norm())


def rounded(x, mantissa_bits):
    """x (float32) with its operands rounded to nearest at `mantissa_bits` explicit mantissa bits."""
    drop = 23 - mantissa_bits
    b = x.contiguous().view(torch.int32)
    b = (b + (1 << (drop - 1))) & ~((1 << drop) - 1)
    return b.view(torch.float32)


def seq_sum(p, dim):
    """Sequential float32 accumulation along `dim`, one term after another (torch's own sums are blocked and
    its CPU cumsum accumulates in float64)."""
    p = p.movedim(dim, 0)
    acc = torch.zeros_like(p[0])
    for t in p:
        acc += t
    return acc


def matmul_cases(a, b):
    """a (M,K) @ b (K,N) on a few rows and columns: honest orders and reduced operands."""
    a64, b64 = a.double(), b.double()
    ref64 = a64 @ b64
    prod = a[:, :, None] * b[None, :, :]  # exact products would need FMA; float32-rounded products here
    return ref64, a @ b, {
        "fp32, sequential accumulation over k": seq_sum(prod, 1),
        "fp32, 32 sequential partial sums over k, then summed": seq_sum(seq_sum(
            prod.reshape(prod.shape[0], 32, -1, prod.shape[2]), 2), 1) if prod.shape[1] % 32 == 0 else seq_sum(prod, 1),
        "fp32, fp64 accumulation rounded": ref64.float(),
        "TF32 operands, fp32 accumulation": rounded(a, 10) @ rounded(b, 10),
        "fp16 operands, fp32 accumulation": a.half().float() @ b.half().float(),
        "bf16 operands, fp32 accumulation": a.bfloat16().float() @ b.bfloat16().float(),
    }


def rowwise_cases(fn, x, honest):
    """A row-wise operator: honest float32 variants (`honest`: sequential sums), float64 computation rounded,
    and fp16/bf16 arithmetic."""
    with torch.no_grad():
        ref64 = fn(x.double())
        return ref64, fn(x), {
            "fp32, sequential sums along the row": honest(x),
            "fp32, fp64 computation rounded": ref64.float(),
            "fp16 arithmetic": fn(x.half()).float(),
            "bf16 arithmetic": fn(x.bfloat16()).float(),
        }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--level1", required=True)
    ap.add_argument("--floor", type=float, default=1e-6)
    args = ap.parse_args()
    rows = []
    # Matmuls: the problem's K and its torch.rand operands, 64 rows x 64 columns of the product (problems 6's and
    # 4's K cut to 2^17 so that the sequential emulation fits in memory; 4 is a matrix-vector product).
    for prefix, k in (("1", 4096), ("2", 4096 * 2), ("6", 1 << 17), ("9", 32), ("4", 1 << 17)):
        name, _ = load(args.level1, prefix)
        torch.manual_seed(42)
        a, b = torch.rand(64, k), torch.rand(k, 64 if prefix != "4" else 1)
        ref64, ref32, cases = matmul_cases(a, b)
        rows.append((f"{name} (K={k})", rel(ref32, ref64), cases, ref64))
    torch.manual_seed(42)
    ref64, ref32, cases = matmul_cases(torch.rand(64, 512), torch.rand(512, 48))
    rows.append(("self-test matmul_rand (K=512)", rel(ref32, ref64), cases, ref64))
    # Row-wise operators on 16 rows of 65536 of their own distribution (torch.rand).
    def softmax(x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / seq_sum(e, 1)[:, None]

    def layer_norm(x):
        n = x.shape[1]
        mean = seq_sum(x, 1)[:, None] / n
        var = seq_sum((x - mean) ** 2, 1)[:, None] / n
        return (x - mean) / torch.sqrt(var + 1e-5)

    def cross_entropy(x, t):
        m = x.max(dim=1).values
        lse = m + torch.log(seq_sum(torch.exp(x - m[:, None]), 1))
        return (seq_sum((lse - x.gather(1, t[:, None])[:, 0])[:, None], 0) / x.shape[0]).reshape(())

    target = torch.arange(1024) % 4096
    ops = {"23": (lambda x: torch.softmax(x, dim=1), softmax),
           "40": (lambda x: torch.nn.functional.layer_norm(x, x.shape[1:]), layer_norm),
           "47": (lambda x: torch.sum(x, dim=1, keepdim=True), lambda x: seq_sum(x, 1)[:, None]),
           "26": (lambda x: torch.nn.functional.gelu(x),
                  lambda x: 0.5 * x * (1 + torch.erf(x * 0.7071067811865476))),
           "95": (lambda x: torch.nn.functional.cross_entropy(x, target), lambda x: cross_entropy(x, target))}
    for prefix, (fn, honest) in ops.items():
        name, _ = load(args.level1, prefix)
        torch.manual_seed(42)
        x = torch.rand(16, 65536) if prefix != "95" else torch.rand(1024, 4096)
        ref64, ref32, cases = rowwise_cases(fn, x, honest)
        rows.append((f"{name} ({'x'.join(map(str, x.shape))})", rel(ref32, ref64), cases, ref64))
    print("| problem (piece) | arithmetic | error vs float64 | float32 reference's error | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for label, ref_err, cases, ref64 in rows:
        for what, out in cases.items():
            e = rel(out, ref64)
            print(f"| {label} | {what} | {e:.2e} | {ref_err:.2e} | {e / max(ref_err, args.floor):.1f} |")


if __name__ == "__main__":
    main()
