"""Yardsticks (docs/evaluator.md, "Yardsticks"): the torch.compile baseline (compile_baseline), the reference's
work for the roofline (roofline, cached per problem file) and the device's measured peaks (peaks).
"""
import hashlib
import importlib
import json
import os
import time

import torch

from kforge_oracle.problem import DTYPES, as_list


# torch.compile modes of the compile baseline: kforge's name -> torch.compile's `mode`.
COMPILE_MODES = {"default": None, "max-autotune": "max-autotune"}


class YardstickOps:
    """Mixed into Oracle (oracle.py), which holds the state."""

    def baseline_forward(self, p, baseline, mode):
        """The callable a baseline times: the eager model, or its torch.compile'd twin in `mode` (compiled by
        op_compile_baseline, outside the timed rounds)."""
        if baseline == "eager":
            return p.model
        entry = compiled_models(p).get(mode)
        if baseline != "compile" or entry is None or entry.get("error"):
            raise RuntimeError(f"baseline '{baseline}' ({mode}) was not compiled (op compile_baseline first)")
        return entry["forward"]

    def op_compile_baseline(self, req):
        """torch.compile of the reference in `mode` (default or max-autotune), then one call on every baseline
        input set, so that each shape's compilation happens here and not in a timed round. Kept per loaded problem (a second evaluation of the problem finds it compiled); the compiled
        artifacts also land in inductor's cache folder (TORCHINDUCTOR_CACHE_DIR, set by the evaluator), which
        outlives the oracle. A reference torch.compile cannot compile is reported, not raised."""
        p = self.need_problem()
        mode = req.get("mode", "default")
        if mode not in COMPILE_MODES:
            raise RuntimeError(f"unknown torch.compile mode '{mode}' ({', '.join(COMPILE_MODES)})")
        if self.baseline_sets is None:
            self.baseline_sets = self.baseline_input_sets(p, max(1, int(req.get("slots", 1))))
        cache = compiled_models(p)
        entry = cache.get(mode)
        fresh = entry is None
        t0 = time.perf_counter()
        if fresh:
            entry = cache[mode] = {"forward": None, "error": None, "compile_s": 0.0}
            try:
                importlib.import_module("torch._dynamo")  # torch 2.x; an old torch reports its absence below
                entry["forward"] = torch.compile(p.model, mode=COMPILE_MODES[mode])
            except Exception as e:
                entry["error"] = f"torch.compile is not available: {type(e).__name__}: {e}"
        if entry["forward"] is not None and not entry["error"]:
            try:
                # Twice: a recompilation the first calls trigger (a guard that fails once) happens here too.
                with torch.no_grad():
                    for _pass in range(2):
                        for args, _ in self.baseline_sets:
                            res = entry["forward"](*args)
                            del res
                if p.device == "cuda":
                    torch.cuda.synchronize()
            except Exception as e:
                msg = f"{type(e).__name__}: {e}".strip()
                entry["error"] = "torch.compile could not compile the reference: " + msg[:2000]
            finally:
                p.model.load_state_dict(p.initial_state)
        seconds = time.perf_counter() - t0
        if fresh:
            entry["compile_s"] = seconds
        return {"mode": mode, "compiled": not entry["error"], "error": entry["error"] or "",
                "compile_s": entry["compile_s"], "cached": not fresh, "warmup_s": seconds}

    def op_roofline(self, req):
        """The reference's work per call for each shape the evaluation's seeds give (`seeds`; the problem's own
        seed when none): FLOPs by dtype (torch's FLOP counter: matmuls, convolutions, attention), the other
        arithmetic (one per element of a pointwise op's output, of a reduction's input, five per softmax
        element), and the minimum bytes moved: every input (arguments and the model's state) read once and
        every output written once. Kept per problem and shape."""
        p = self.need_problem()
        seeds = [int(s) for s in req.get("seeds", [])] or [p.seed]
        if not p.varying:
            seeds = seeds[:1]  # one shape: no need to draw (possibly GBs of) inputs for every seed
        cache = p.__dict__.setdefault("roofline_cache", {})
        shapes_seen, entries = set(), []
        for seed in seeds:
            args = p.gen_args(seed)
            key = tuple(tuple(t.shape) for t in p.arg_tensors(args))
            if key not in cache:
                cache[key] = roofline_work_cached(p, args, req.get("cache_dir"))
            if key not in shapes_seen:
                shapes_seen.add(key)
                entries.append(cache[key])
            del args
        return {"shapes": entries}

    def op_peaks(self, req):
        """The device's name and its measured figures: copy bandwidth (bytes read + written per second) and a
        square matmul's FLOP/s per floating dtype the device runs fast (float32 on the host). Measured once per
        session; the nominal figures are the supervisor's table (evaluator/roofline.cpp)."""
        if getattr(self, "peaks", None) is None:
            cuda = req.get("backend") == "cuda" and torch.cuda.is_available()
            res = {"device": "cpu", "copy_gbps": None, "matmul_tflops": {}}
            if cuda:
                res["device"] = torch.cuda.get_device_properties(torch.cuda.current_device()).name
                res["copy_gbps"] = self.op_bandwidth({})["gbps"]
                for dt in (torch.float32, torch.bfloat16, torch.float16):
                    res["matmul_tflops"][DTYPES[dt][0]] = measure_matmul_tflops("cuda", dt, 8192)
            else:
                res["device"] = host_cpu_name()
                res["copy_gbps"] = measure_host_copy_gbps()
                res["matmul_tflops"]["float32"] = measure_matmul_tflops("cpu", torch.float32, 512)
            self.peaks = res
        return self.peaks


def compiled_models(p):
    return p.__dict__.setdefault("compiled_baselines", {})


# Bumped whenever reference_work's figures change meaning: entries of an older version are then not used.
ROOFLINE_CACHE_VERSION = 1


def roofline_work_cached(p, args, cache_dir):
    """reference_work(p, args), kept on disk in `cache_dir` (kforge's cache; None: not kept) under the problem
    file's contents, the arguments' shapes and dtypes, the device, the precision and torch's version: the count
    is a pure function of these, and counting costs the FLOP counter's import and a reference call per process."""
    if not cache_dir:
        return reference_work(p, args)
    if getattr(p, "content_sha", None) is None:
        try:
            with open(p.path, "rb") as fh:
                p.content_sha = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            return reference_work(p, args)
    material = json.dumps([ROOFLINE_CACHE_VERSION, p.content_sha, p.precision, p.device, torch.__version__,
                           [[list(t.shape), str(t.dtype)] for t in p.arg_tensors(args)]])
    path = os.path.join(cache_dir, hashlib.sha256(material.encode()).hexdigest() + ".json")
    try:
        with open(path) as fh:
            entry = json.load(fh)
        if isinstance(entry, dict) and entry.get("material") == material and isinstance(entry.get("work"), dict):
            return entry["work"]
    except (OSError, ValueError):
        pass
    work = reference_work(p, args)
    if "error" not in work:
        try:
            os.makedirs(cache_dir, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as fh:
                json.dump({"material": material, "work": work}, fh)
            os.replace(tmp, path)
        except OSError:
            pass  # not kept: counted again next time
    return work


def reference_work(p, args):
    """One reference call's work on `args` (see Oracle.op_roofline)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import flop_registry

    flops, other = {}, {"flops": 0}

    def floating_dtype(xs):
        for x in xs:
            if isinstance(x, torch.Tensor) and x.is_floating_point():
                return DTYPES.get(x.dtype, (str(x.dtype),))[0]
        return "other"

    def numel_of(x):
        return sum(t.numel() for t in as_list(x) if isinstance(t, torch.Tensor))

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            packet = func._overloadpacket
            if packet in flop_registry:
                dt = floating_dtype(list(args) + list(kwargs.values()))
                flops[dt] = flops.get(dt, 0) + int(flop_registry[packet](*args, **kwargs, out_val=out))
            elif packet in (torch.ops.aten._softmax, torch.ops.aten._log_softmax):
                other["flops"] += 5 * numel_of(out)
            elif torch.Tag.reduction in func.tags:
                other["flops"] += numel_of(args[0]) if args else 0
            elif torch.Tag.pointwise in func.tags:
                other["flops"] += numel_of(out)
            return out

    tensors = p.arg_tensors(args)
    state = list(p.initial_state.values())
    p.model.load_state_dict(p.initial_state)
    try:
        with torch.no_grad(), Count():
            ref = p.model(*args)
    except Exception as e:
        return {"inputs": [list(t.shape) for t in tensors], "error": f"{type(e).__name__}: {e}"[:500]}
    finally:
        p.model.load_state_dict(p.initial_state)
    outs = [o for o in as_list(ref) if isinstance(o, torch.Tensor)]
    nbytes = lambda ts: sum(t.numel() * t.element_size() for t in ts)  # noqa: E731
    return {"inputs": [list(t.shape) for t in tensors], "outputs": [list(o.shape) for o in outs],
            "flops": flops, "other_flops": other["flops"],
            "bytes": nbytes(tensors) + nbytes(state) + nbytes(outs),
            "bytes_read": nbytes(tensors) + nbytes(state), "bytes_written": nbytes(outs)}


def measure_matmul_tflops(device, dtype, n):
    """Best of five square n x n matmuls (2 n^3 FLOPs each), in TFLOP/s."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    best = float("inf")
    with torch.no_grad():
        for i in range(7):
            if device == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch.mm(a, b)
            if device == "cuda":
                torch.cuda.synchronize()
            if i >= 2:
                best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best / 1e12


def measure_host_copy_gbps():
    """Best of five copies of 64 MiB between two host tensors (bytes read + written per second)."""
    n = 64 << 20
    a = torch.ones(n, dtype=torch.uint8)
    b = torch.empty(n, dtype=torch.uint8)
    best = float("inf")
    for i in range(7):
        t0 = time.perf_counter()
        b.copy_(a)
        if i >= 2:
            best = min(best, time.perf_counter() - t0)
    return 2 * n / best / 1e9


def host_cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"
