"""Trusted replay of a kernelbench solution's extension calls (docs/candidates.md, "Attribution"): the runner's
record of one trial's calls, read as hostile input (typed, capped, read not mapped), becomes the replayer's job
(replay_prepare); the replayer's results are judged against the record and the reference (replay_judge).
"""
import json
import math
import os

import torch

from kforge_oracle.protocol import CandidateError
from kforge_oracle.problem import DTYPES


REPLAY_DTYPES = {name: dt for dt, (name, _) in DTYPES.items()}
REPLAY_MAX_JSON = 4 << 20
REPLAY_MAX_CALLS = 256
REPLAY_MAX_TENSORS = 4096


class ReplayRefused(Exception):
    """The record or the replay cannot support trusted attribution: why (never a harness failure)."""


class ReplayMismatch(ReplayRefused):
    """A replayed output differs from the recorded one: a forged record, or a kernel with hidden state."""


def read_capped(path, cap):
    """A file the candidate's processes wrote: regular, not a link, at most `cap` bytes, read (never mapped)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ReplayRefused(f"{os.path.basename(path)} cannot be opened ({e.strerror})")
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000):
            raise ReplayRefused(f"{os.path.basename(path)} is not a regular file")
        if st.st_size > cap:
            raise ReplayRefused(f"{os.path.basename(path)} holds {st.st_size} bytes, more than {cap}")
        chunks, left = [], cap + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 24))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > cap:
            raise ReplayRefused(f"{os.path.basename(path)} grew past {cap} bytes")
        return data
    finally:
        os.close(fd)


def read_json_capped(path):
    try:
        value = json.loads(read_capped(path, REPLAY_MAX_JSON).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ReplayRefused(f"{os.path.basename(path)} is not valid JSON ({str(e)[:100]})")
    if not isinstance(value, dict):
        raise ReplayRefused(f"{os.path.basename(path)} is not a JSON object")
    return value


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def read_tensors(folder, prefix, specs, budget):
    """Tensors `prefix<i>.bin` described by `specs` ({dtype, shape}), each exactly its size, `budget` bytes in all."""
    if not isinstance(specs, list) or len(specs) > REPLAY_MAX_TENSORS:
        raise ReplayRefused("the tensor list is missing or too long")
    out, total = [], 0
    for i, sp in enumerate(specs):
        if not isinstance(sp, dict) or sp.get("dtype") not in REPLAY_DTYPES or not isinstance(sp.get("shape"), list) \
                or len(sp["shape"]) > 8 or not all(is_int(d) and 0 <= d < (1 << 40) for d in sp["shape"]):
            raise ReplayRefused(f"tensor {i} has an unreadable description")
        dt = REPLAY_DTYPES[sp["dtype"]]
        nbytes = math.prod(sp["shape"]) * torch.empty((), dtype=dt).element_size()
        total += nbytes
        if total > budget:
            raise ReplayRefused(f"the tensors exceed {budget} bytes")
        data = read_capped(os.path.join(folder, f"{prefix}{i}.bin"), nbytes)
        if len(data) != nbytes:
            raise ReplayRefused(f"{prefix}{i}.bin holds {len(data)} bytes, not the {nbytes} its description says")
        flat = torch.frombuffer(bytearray(data), dtype=dt) if nbytes else torch.empty(0, dtype=dt)
        out.append(flat.reshape(sp["shape"]))
    return out


def encoded_value(v, tensors, what):
    """One recorded argument or result: a tensor id, a scalar, None or a short list of scalars."""
    if not isinstance(v, dict) or len(v) != 1:
        raise ReplayRefused(f"{what} is unreadable")
    (k, x), = v.items()
    if k == "tensor":
        if not is_int(x) or not 0 <= x < len(tensors):
            raise ReplayRefused(f"{what} names no recorded tensor")
    elif k == "list":
        if not isinstance(x, list) or len(x) > 64:
            raise ReplayRefused(f"{what} is unreadable")
        for e in x:
            if encoded_value(e, tensors, what).get("tensor") is not None or "list" in e or "none" in e:
                raise ReplayRefused(f"{what} is unreadable")
    elif k == "int":
        if not is_int(x) or abs(x) >= 1 << 63:
            raise ReplayRefused(f"{what} is unreadable")
    elif k == "float":
        if not (isinstance(x, (int, float)) and not isinstance(x, bool)) and x not in ("nan", "inf", "-inf"):
            raise ReplayRefused(f"{what} is unreadable")
    elif k == "bool":
        if not isinstance(x, bool):
            raise ReplayRefused(f"{what} is unreadable")
    elif k != "none" or x is not True:
        raise ReplayRefused(f"{what} is unreadable")
    return v


def as_double(t):
    return t.reshape(-1).to(torch.float64)


def same_values(a, b, tols, exact):
    """Whether a and b hold the same values in the same order (any shape, any dtype of the same kind): exactly,
    or within the verifier's tolerance of b's dtype (rtol, atol_scale x b's RMS) for floating tensors."""
    if a.numel() != b.numel() or a.is_floating_point() != b.is_floating_point():
        return False
    x, y = as_double(a), as_double(b)
    if not a.is_floating_point() or exact:
        return bool(torch.equal(x, y)) or bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all())
    nx, ny = torch.isnan(x), torch.isnan(y)
    if not bool(torch.equal(nx, ny)):
        return False
    x, y = x[~nx], y[~ny]
    if x.numel() == 0:
        return True
    inf = torch.isinf(y)
    if not bool(torch.equal(x[inf], y[inf])):
        return False
    x, y = x[~inf], y[~inf]
    tol = tols.get(DTYPES.get(b.dtype, ("float32",))[0], {"rtol": 0.0, "atol_scale": 0.0})
    rms = float(torch.sqrt((y * y).mean())) if y.numel() else 0.0
    return bool(((x - y).abs() <= tol.get("rtol", 0.0) * y.abs() + tol.get("atol_scale", 0.0) * rms).all())


def explained_by(t, pool, tols):
    """Whether tensor t's values are one of the pool's (exact ones exactly, others within tolerance), also read
    transposed for 2-D pool tensors; or a constant (a fresh allocation: zeros, ones, a fill)."""
    if t.numel() == 0:
        return True
    flat = t.reshape(-1)
    if flat.is_floating_point() and bool(torch.isnan(flat).all()):
        return True
    if bool((flat == flat[0]).all()):
        return True
    for cand, exact in pool:
        if cand.numel() != t.numel():
            continue
        if same_values(t, cand, tols, exact):
            return True
        if cand.dim() == 2 and same_values(t, cand.t().contiguous(), tols, exact):
            return True
    return False


class ReplayOps:
    """Mixed into Oracle (oracle.py), which holds the state."""

    def op_replay_prepare(self, req):
        """Reads the runner's record of one trial's extension calls (hostile: typed, capped, read not mapped) and
        writes the replayer's job (replay.json, in<N>.bin) into req["out"]. {"replayable": false, "why"} when the
        record cannot support a replay."""
        self.replay = None
        try:
            folder, keys = req["record"], set(req.get("extensions", []))
            rec = read_json_capped(os.path.join(folder, "calls.json"))
            if rec.get("unsupported"):
                raise ReplayRefused(f"the record is incomplete: {str(rec['unsupported'])[:200]}")
            tensors = read_tensors(folder, "t", rec.get("tensors"), int(req.get("max_bytes", 1 << 30)))
            calls = rec.get("calls")
            if not isinstance(calls, list) or not calls:
                raise ReplayRefused("no call into a kforge-built extension was recorded")
            if len(calls) > REPLAY_MAX_CALLS:
                raise ReplayRefused(f"more than {REPLAY_MAX_CALLS} calls recorded")
            parsed, job_tensors, job_calls = [], [], []
            for n, c in enumerate(calls):
                what = f"call {n}"
                if not isinstance(c, dict) or c.get("ext") not in keys or not isinstance(c.get("fn"), str) or \
                        not c["fn"].isidentifier() or c["fn"].startswith("_") or len(c["fn"]) > 200:
                    raise ReplayRefused(f"{what} names no function of a kforge-built extension")
                args, after, returns = c.get("args"), c.get("after"), c.get("returns")
                if not isinstance(args, list) or not isinstance(after, list) or not isinstance(returns, list) or \
                        len(after) != len(args) or len(args) > 64 or len(returns) > 64:
                    raise ReplayRefused(f"{what} is unreadable")
                args = [encoded_value(a, tensors, f"{what}'s argument {k}") for k, a in enumerate(args)]
                returns = [encoded_value(r, tensors, f"{what}'s result {k}") for k, r in enumerate(returns)]
                for k, (a, t) in enumerate(zip(args, after)):
                    if ("tensor" in a) != (is_int(t) and 0 <= t < len(tensors)):
                        raise ReplayRefused(f"{what}'s argument {k} has no state after the call")
                job_args = []
                for a in args:
                    if "tensor" in a:
                        job_tensors.append(tensors[a["tensor"]])
                        job_args.append({"tensor": len(job_tensors) - 1})
                    else:
                        job_args.append(a)
                parsed.append({"fn": c["fn"], "args": [tensors[a["tensor"]] if "tensor" in a else None for a in args],
                               "after": [tensors[t] if is_int(t) else None for t in after],
                               "returns": [tensors[r["tensor"]] if "tensor" in r else r for r in returns]})
                job_calls.append({"ext": c["ext"], "fn": c["fn"], "args": job_args})
            out = req["out"]
            for i, t in enumerate(job_tensors):
                with open(os.path.join(out, f"in{i}.bin"), "wb") as fh:
                    fh.write(bytes(t.reshape(-1).view(torch.uint8).numpy()) if t.numel() else b"")
            with open(os.path.join(out, "replay.json"), "w") as fh:
                json.dump({"calls": job_calls, "tensors": [{"dtype": DTYPES[t.dtype][0], "shape": list(t.shape)}
                                                            for t in job_tensors]}, fh)
            self.replay = parsed
            return {"replayable": True, "calls": len(parsed)}
        except ReplayRefused as e:
            return {"replayable": False, "why": str(e)}

    def op_replay_judge(self, req):
        """The replayer's outputs (hostile: the extensions ran there) against the record, the record's inputs
        against what they may come from, and the trial's checked outputs against the replayed ones."""
        parsed, self.replay = self.replay, None
        try:
            if parsed is None or self.trial is None:
                raise ReplayRefused("no recorded trial to judge")
            tols = req.get("tolerances", {})
            res = read_json_capped(os.path.join(req["dir"], "result.json"))
            outs = read_tensors(req["dir"], "r", res.get("tensors"), int(req.get("max_bytes", 1 << 30)))
            calls = res.get("calls")
            if not isinstance(calls, list) or len(calls) != len(parsed):
                raise ReplayRefused("the replay did not run every recorded call")
            p = self.problem
            # What a call's tensor input may be: a problem input of this trial, a parameter or buffer of the
            # reference Model (seed 42, as ModelNew is built), or an earlier call's output the replay reproduced.
            pool = [(t, True) for t in self.trial["inputs"] if isinstance(t, torch.Tensor)]
            pool += [(t.detach().to("cpu"), True) for t in p.initial_state.values()]
            pool = [(t.to("cpu"), e) for t, e in pool]
            produced = []
            for n, (c, r) in enumerate(zip(parsed, calls)):
                where = f"call {n} ({c['fn']})"
                if not isinstance(r, dict) or not isinstance(r.get("returns"), list) or \
                        not isinstance(r.get("after"), list) or not isinstance(r.get("free"), list) or \
                        len(r["after"]) != len(c["args"]) or len(r["returns"]) != len(c["returns"]):
                    raise ReplayRefused(f"{where}: the replay's result does not match the record's shape")
                free = {k for k in r["free"] if is_int(k)}
                for k, t in enumerate(c["args"]):
                    if t is not None and k not in free and not explained_by(t, pool + produced, tols):
                        raise ReplayRefused(f"{where}: tensor argument {k} is none of the problem's inputs, the "
                                            "reference's parameters or an earlier kernel's output (computed in "
                                            "Python between the kernels?)")
                for k, (rec, got) in enumerate(zip(c["returns"], r["returns"])):
                    if isinstance(rec, torch.Tensor):
                        if not isinstance(got, dict) or not is_int(got.get("tensor")) or \
                                not 0 <= got["tensor"] < len(outs):
                            raise ReplayRefused(f"{where}: result {k} was recorded as a tensor but the replay "
                                                "returned none")
                        g = outs[got["tensor"]]
                        if g.shape != rec.shape or g.dtype != rec.dtype or not same_values(g, rec, tols, False):
                            raise ReplayMismatch(f"{where}: result {k} of the replay differs from the recorded one "
                                                "(a forged record, or a kernel that depends on more than its "
                                                "arguments)")
                        produced.append((g, False))
                for k, (rec, got) in enumerate(zip(c["after"], r["after"])):
                    if rec is None:
                        continue
                    if not is_int(got) or not 0 <= got < len(outs) or outs[got].shape != rec.shape or \
                            not same_values(outs[got], rec, tols, False):
                        raise ReplayMismatch(f"{where}: argument {k} after the replayed call differs from the "
                                            "recorded one")
                    if not same_values(outs[got], c["args"][k], {}, True):
                        produced.append((outs[got], False))
            self.check_files()
            for j, b in enumerate(self.out_bufs()):
                o = b["_t"].detach().to("cpu")
                if not any(g.numel() == o.numel() and same_values(o, g, tols, False) for g, _ in produced):
                    raise ReplayRefused(f"forward's output {j} ({b['name']}) is none of the replayed kernels' "
                                        "outputs (computed in Python after the kernels?)")
            return {"trusted": True, "calls": len(parsed)}
        except ReplayRefused as e:
            return {"trusted": False, "why": str(e), "mismatch": isinstance(e, ReplayMismatch)}
        except CandidateError as e:
            return {"trusted": False, "why": str(e)}
