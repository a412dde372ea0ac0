"""Comparisons of a candidate's outputs with the reference, chunk by chunk: the statistics the C++ judge decides
on (errors relative to the reference's scale, non-finite values, poison left in place). The decision is the
judge's; these only measure.
"""
import math

import torch

from kforge_oracle.protocol import finite_or_none


# Poison: every byte 0xFF. A NaN for every float dtype, -1 for signed integers, 255 for uint8, and an
# invalid byte for bool, so any element the candidate leaves alone is found by a bitwise comparison.
BITS_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
POISON_BITS = {1: 255, 2: -1, 4: -1, 8: -1}
CHUNK = 1 << 25


def bits_view(t):
    return t.reshape(-1).view(BITS_VIEW[t.element_size()])


def all_finite(*chunks):
    """Whether every element of these floating chunks is finite: then a comparison takes its fast path."""
    return all(bool(torch.isfinite(c).all()) for c in chunks)


def finite_difference(o, r):
    """o - r for chunks that are finite everywhere, in float32 (float64 for float64 outputs), or None where the
    difference overflows. Subtraction is exact wherever o and r lie within a factor of two of each other
    (Sterbenz), so wherever a tolerance could decide; elsewhere its rounding is far below any tolerance. Sums
    of its squares are taken in float64. A pass costs a few float32 kernels per chunk where the float64 pass
    took some forty: comparing ReLU's 1.6G-element output took 0.24-0.52 s on an H200, 0.46-1.03 s before."""
    work = torch.float64 if o.dtype == torch.float64 else torch.float32
    d = o.to(work) - r.to(work)
    return d if bool(torch.isfinite(d).all()) else None


def sum_sq(x):
    """Sum of squares in float64."""
    xd = x.double()
    return torch.dot(xd, xd)


def max_abs(d):
    lo, hi = torch.aminmax(d)
    return torch.maximum(lo.abs(), hi.abs()).double()


def over_tolerance(d, r, thr_abs, rtol):
    """Elements with |d| > thr_abs + rtol * |r| (d from finite_difference, so in its precision)."""
    return d.abs() > r.to(d.dtype).abs() * rtol + thr_abs


def ref_profile(ref):
    if not ref.is_floating_point():
        return {"rms": 0.0, "mean": 0.0, "sumsq": 0.0, "sum": 0.0, "count": ref.numel()}
    r = ref.reshape(-1)
    s = torch.zeros((), dtype=torch.float64, device=ref.device)
    m = torch.zeros((), dtype=torch.float64, device=ref.device)
    cnt = torch.zeros((), dtype=torch.int64, device=ref.device)
    for i in range(0, r.numel(), CHUNK):
        c = r[i:i + CHUNK]
        if all_finite(c):
            s += sum_sq(c)
            m += c.double().sum()
            cnt += c.numel()
            continue
        c = c.double()
        fin = torch.isfinite(c)
        c = torch.where(fin, c, torch.zeros_like(c))
        s += (c * c).sum()
        m += c.sum()
        cnt += fin.sum()
    n = max(r.numel(), 1)
    return {"rms": math.sqrt(float(s) / n), "mean": float(m) / max(int(cnt), 1), "sumsq": float(s),
            "sum": float(m), "count": int(cnt)}


def allclose_by_chunks(ref, get_chunk, tol):
    """torch.allclose(ref, candidate, atol=tol, rtol=tol) as KernelBench calls it (rtol scales |candidate|),
    chunk by chunk: the test is elementwise, so the answer is the same, and the temporaries of one call on
    KernelBench's largest outputs would take several times the output's memory."""
    r = ref.reshape(-1)
    for s in range(0, r.numel(), CHUNK):
        e = min(r.numel(), s + CHUNK)
        c = get_chunk(s, e)
        try:
            ok = bool(torch.allclose(r[s:e], c, atol=tol, rtol=tol))
        except RuntimeError:  # dtypes allclose refuses (bool): KernelBench's check then needs equality
            ok = bool(torch.equal(r[s:e], c))
        if not ok:
            return False
    return True


def stats(get_chunk, ref, prof, rtol, atol_scale, poison=False, max_first=5):
    """Statistics of a candidate (given chunk by chunk) against ref. Accumulated on ref's device."""
    dev = ref.device
    r_all = ref.reshape(-1)
    n = r_all.numel()
    floating = ref.is_floating_point()
    z = lambda: torch.zeros((), dtype=torch.float64, device=dev)  # noqa: E731
    zi = lambda: torch.zeros((), dtype=torch.int64, device=dev)  # noqa: E731
    diff2, ref2, maxabs = z(), z(), z()
    viol, parity, unwritten, mism = zi(), zi(), zi(), zi()
    first_v, first_u = [], []
    thr_abs = atol_scale * prof["rms"]
    pbits = POISON_BITS[ref.element_size()]
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        o = get_chunk(s, e)
        r = r_all[s:e]
        if poison:
            ob = o.view(BITS_VIEW[o.element_size()])
            rb = r.view(BITS_VIEW[r.element_size()])
            u = (ob == pbits) & (rb != pbits)
            cu = u.sum()
            unwritten += cu
            if len(first_u) < max_first and int(cu) > 0:
                first_u += [int(x) + s for x in torch.nonzero(u).reshape(-1)[:max_first - len(first_u)]]
        d = finite_difference(o, r) if floating and all_finite(o, r) else None
        if d is not None:
            diff2 += sum_sq(d)
            ref2 += sum_sq(r)
            if d.numel():
                maxabs = torch.maximum(maxabs, max_abs(d))
            bad = over_tolerance(d, r, thr_abs, rtol)
            cb = bad.sum()
            viol += cb
            if len(first_v) < max_first and int(cb) > 0:
                first_v += [int(x) + s for x in torch.nonzero(bad).reshape(-1)[:max_first - len(first_v)]]
        elif floating:
            od, rd = o.double(), r.double()
            rfin, ofin = torch.isfinite(rd), torch.isfinite(od)
            mismatch = (torch.isnan(od) != torch.isnan(rd)) | (torch.isposinf(od) != torch.isposinf(rd)) | \
                       (torch.isneginf(od) != torch.isneginf(rd))
            parity += mismatch.sum()
            both = rfin & ofin
            d = torch.where(both, od - rd, torch.zeros_like(od))
            diff2 += (d * d).sum()
            ref2 += torch.where(rfin, rd * rd, torch.zeros_like(rd)).sum()
            if d.numel():
                maxabs = torch.maximum(maxabs, d.abs().max())
            bad = both & (d.abs() > thr_abs + rtol * rd.abs())
            cb = bad.sum()
            viol += cb
            if len(first_v) < max_first and int(cb) > 0:
                first_v += [int(x) + s for x in torch.nonzero(bad).reshape(-1)[:max_first - len(first_v)]]
        else:
            ne = o != r
            mism += ne.sum()
            if len(first_v) < max_first and int(ne.sum()) > 0:
                first_v += [int(x) + s for x in torch.nonzero(ne).reshape(-1)[:max_first - len(first_v)]]
    d2, r2 = float(diff2), float(ref2)
    if r2 > 0:
        rel = math.sqrt(d2 / r2)
    else:
        rel = 0.0 if d2 == 0 else 1e308
    return {"numel": n, "floating": floating, "rel_l2": finite_or_none(rel), "max_abs": finite_or_none(maxabs),
            "ref_rms": prof["rms"], "violations": int(viol), "first_violations": first_v,
            "nan_inf_mismatch": int(parity), "unwritten": int(unwritten), "first_unwritten": first_u,
            "mismatched_exact": int(mism)}


def distance(get_a, get_b, ref_rms_total, n):
    """||a-b||_2 / ||ref||_2 over positions where both are finite (chunked)."""
    acc = 0.0
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        a, b = get_a(s, e).double(), get_b(s, e).double()
        fin = torch.isfinite(a) & torch.isfinite(b)
        d = torch.where(fin, a - b, torch.zeros_like(a))
        acc += float((d * d).sum())
        # Non-finite where the other is finite counts as far away.
        if bool((torch.isfinite(a) != torch.isfinite(b)).any()):
            return 1e308
    return math.sqrt(acc) / ref_rms_total if ref_rms_total > 0 else (0.0 if acc == 0 else 1e308)
