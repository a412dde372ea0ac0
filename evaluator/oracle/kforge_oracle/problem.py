"""A KernelBench-format problem file loaded by the oracle: its Model built as KernelBench builds it, inputs per
seed and distribution variant, the reference outputs (also in float64), and the specs of its inputs and outputs
that the candidate's buffers follow. A failure of the file's own code is a ProblemError (bad input).
"""
import copy
import importlib.util
import inspect
import math
import os
import random
import sys

import torch

from kforge_oracle.protocol import ProblemError


DTYPES = {
    torch.float32: ("float32", 0), torch.float16: ("float16", 1), torch.bfloat16: ("bfloat16", 2),
    torch.float64: ("float64", 3), torch.int64: ("int64", 4), torch.int32: ("int32", 5),
    torch.bool: ("bool", 6), torch.int8: ("int8", 7), torch.uint8: ("uint8", 8),
}
PRECISIONS = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
VARIANTS = ["own", "signed_outliers", "scaled_large", "scaled_small", "outliers"]


def dtype_name(dt):
    if dt not in DTYPES:
        raise ProblemError(f"dtype {dt} is not supported by the kforge ABI")
    return DTYPES[dt][0]


def spec(name, t):
    return {"name": name, "dtype": dtype_name(t.dtype), "shape": list(t.shape)}


def seed_all(seed):
    """Every generator a get_inputs() may draw from, so that a seed names its inputs (timed rounds regenerate
    a checked slot's inputs from its seed instead of keeping a copy)."""
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (1 << 32))


def as_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


class Problem:
    def __init__(self, path, precision, device, export_state=True):
        """export_state: the model's state_dict entries are inputs of the candidate (kf_forward); a kernelbench
        candidate keeps its own parameters inside ModelNew, so only forward()'s arguments are exported."""
        self.path, self.precision, self.device = path, precision, device
        self.export_state = export_state
        if precision not in PRECISIONS:
            raise ProblemError(f"unknown precision '{precision}' (use fp32, fp16 or bf16)")
        self.fdtype = PRECISIONS[precision]
        if not os.path.isfile(path):
            raise ProblemError(f"problem file {path} does not exist")
        try:
            spec_ = importlib.util.spec_from_file_location(f"kforge_problem_{abs(hash(path))}", path)
            self.module = importlib.util.module_from_spec(spec_)
            spec_.loader.exec_module(self.module)
        except Exception as e:
            raise ProblemError(f"problem file {path} failed to import: {type(e).__name__}: {e}")
        for attr in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(self.module, attr):
                raise ProblemError(f"problem file {path} defines no '{attr}' (KernelBench format expected)")
        self.seed = 42
        try:
            seed_all(self.seed)
            init = as_list(self.module.get_init_inputs())
            self.init_inputs = init
            seed_all(self.seed)
            # The model is built on the CPU from the CPU generator, exactly as KernelBench does, then moved.
            model = self.module.Model(*init)
            model = model.to(device)
            model = model.to(self.fdtype)  # casts floating parameters and buffers only
        except Exception as e:
            raise ProblemError(f"problem file {path}: building Model failed: {type(e).__name__}: {e}")
        self.model = model
        self.state_names = list(model.state_dict().keys())
        self.initial_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        try:
            self.arg_names = [p for p in inspect.signature(model.forward).parameters]
        except (TypeError, ValueError):
            self.arg_names = []
        self.input_generator = "cuda" if device == "cuda" else "cpu"
        args, ref = self.make_inputs(self.seed, "own")
        self.num_args = len(args)
        names = [self.arg_names[i] if i < len(self.arg_names) else f"arg{i}" for i in range(len(args))]
        self.input_specs = [spec(n, a) for n, a in zip(names, self.arg_tensors(args))]
        if export_state:
            self.input_specs += [spec(k, v) for k, v in model.state_dict().items()]
        self.arg_kinds = ["tensor" if isinstance(a, torch.Tensor) else "bool" if isinstance(a, bool)
                          else "int" if isinstance(a, int) else "float" for a in args]
        self.output_specs = [spec(f"output{i}", o) for i, o in enumerate(ref)]
        self.mark_varying_dims()
        self.base_nonfinite = sum(int((~torch.isfinite(o)).sum()) if o.is_floating_point() else 0 for o in ref)
        self.baseline = None
        self.model64 = None  # the float64 copy behind reference64, built on first use

    def mark_varying_dims(self):
        """Compares the shapes of a second seed's inputs (and, when those differ, outputs) with trial 0's:
        dimensions that differ are listed as `varying` in the specs (the signature tells the model)."""
        args = self.gen_args(self.seed + 1)
        tensors = self.arg_tensors(args)
        self.varying = any(list(t.shape) != s["shape"] for t, s in zip(tensors, self.input_specs))
        if not self.varying:
            return
        outs = self.reference(args)
        for s, t in list(zip(self.input_specs, tensors)) + list(zip(self.output_specs, outs)):
            if len(t.shape) != len(s["shape"]):
                s["varying"] = list(range(max(len(t.shape), len(s["shape"]))))
            else:
                s["varying"] = [d for d, (a, b) in enumerate(zip(t.shape, s["shape"])) if a != b]

    def trial_shapes(self, seed):
        """Shapes of every input and output buffer on `seed` (the input variants never change shapes)."""
        args, ref = self.make_inputs(seed, "own")
        return [list(t.shape) for t in self.all_inputs(args)] + [list(o.shape) for o in ref]

    def kernelbench_seeds(self, trials):
        """KernelBench's correctness-trial seeds (src/kernelbench/eval.py, run_and_check_correctness): the CPU generator
        seeded with seed_num = 42, then one torch.randint(0, 2**32 - 1, (1,)) per trial."""
        torch.manual_seed(self.seed)
        return [int(torch.randint(0, 2 ** 32 - 1, (1,)).item()) for _ in range(trials)]

    def kernelbench_inputs(self, trial_seed):
        """One KernelBench correctness trial: set_seed(trial_seed), get_inputs() on the CPU (KernelBench never
        sets a default device), tensors moved to the device and floating ones cast to the precision, then the
        reference under set_seed(trial_seed) again (what KernelBench's seeding leaves before forward: a problem
        with dropout draws the same mask) and torch's default cuDNN TF32 setting, as KernelBench runs it."""
        seed_all(trial_seed)
        try:
            raw = as_list(self.module.get_inputs())
        except Exception as e:
            raise ProblemError(f"problem file {self.path}: get_inputs() raised {type(e).__name__}: {e}")
        args = []
        for a in raw:
            if isinstance(a, torch.Tensor):
                a = a.to(self.device)
                args.append(a.to(self.fdtype) if a.is_floating_point() else a)
            else:
                args.append(a)
        seed_all(trial_seed)
        tf32 = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = True
        try:
            ref = self.reference(args)
        finally:
            torch.backends.cudnn.allow_tf32 = tf32
        return args, ref

    def gen_args(self, seed):
        seed_all(seed)
        try:
            if self.device == "cuda":
                torch.set_default_device("cuda")
                try:
                    args = as_list(self.module.get_inputs())
                finally:
                    torch.set_default_device("cpu")
            else:
                args = as_list(self.module.get_inputs())
        except Exception as e:
            raise ProblemError(f"problem file {self.path}: get_inputs() raised {type(e).__name__}: {e}")
        out = []
        for i, a in enumerate(args):
            if isinstance(a, torch.Tensor):
                a = a.to(self.device)
                if a.is_floating_point():
                    a = a.to(self.fdtype)
                out.append(a.contiguous())
            elif isinstance(a, (bool, int, float)):
                out.append(a)  # passed to the candidate as a 0-d tensor (see arg_tensors)
            else:
                raise ProblemError(f"problem file {self.path}: forward argument {i} is a {type(a).__name__}; "
                                   "kforge supports tensors and int/float/bool scalars only")
        return out

    def redraw_to_shapes(self, shaped, seed):
        """New values in the shapes of `shaped` (one seed's forward arguments), for problems whose shapes depend
        on the seed. Floating tensors: the problem's own draw on `seed` where its shape matches, else values
        sampled from that draw. Integer and bool tensors: a random permutation of their own values, which keeps
        what a generator may tie to other inputs (sums of lengths, ranges of ids, counts); a sorted one
        (offsets) stays as it is. Scalars stay."""
        fresh = self.gen_args(seed)
        g = torch.Generator(device=self.device)
        g.manual_seed((seed * 2654435761 + 97) % (1 << 63))
        out = []
        for a, f in zip(shaped, fresh):
            if not isinstance(a, torch.Tensor) or a.numel() < 2:
                out.append(a)
                continue
            flat = a.reshape(-1)
            if a.is_floating_point():
                if isinstance(f, torch.Tensor) and f.shape == a.shape and f.dtype == a.dtype:
                    out.append(f)
                    continue
                src = f.reshape(-1) if isinstance(f, torch.Tensor) and f.dtype == a.dtype and f.numel() else flat
                idx = torch.randint(0, src.numel(), (flat.numel(),), generator=g, device=self.device)
                out.append(src[idx].reshape(a.shape).contiguous())
                continue
            if a.dtype != torch.bool and bool((flat[1:] >= flat[:-1]).all()):
                out.append(a)  # sorted: offsets or boundaries, tied to other inputs' sizes
                continue
            perm = torch.randperm(flat.numel(), generator=g, device=self.device)
            out.append(flat[perm].reshape(a.shape).contiguous())
        return out

    def arg_tensors(self, args):
        res = []
        for a in args:
            if isinstance(a, torch.Tensor):
                res.append(a)
            elif isinstance(a, bool):
                res.append(torch.tensor(a, dtype=torch.bool, device=self.device))
            elif isinstance(a, int):
                res.append(torch.tensor(a, dtype=torch.int64, device=self.device))
            else:
                res.append(torch.tensor(a, dtype=self.fdtype, device=self.device))
        return res

    def apply_variant(self, args, variant, seed):
        if variant == "own":
            return args
        if variant == "sparse":
            return self.sparse_change(args, seed)
        if variant == "precision":
            return self.precision_inputs(args, seed)
        large = 8.0 if self.fdtype == torch.float16 else 1e3
        g = torch.Generator(device=self.device)
        g.manual_seed(seed + 7919)
        out = []
        for a in args:
            if not (isinstance(a, torch.Tensor) and a.is_floating_point()):
                out.append(a)
                continue
            if variant in ("signed_outliers", "outliers"):
                if variant == "signed_outliers":
                    a = -a
                if a.numel() > 0:
                    mask = torch.rand(a.shape, generator=g, device=self.device) < 1e-3
                    a = torch.where(mask, a * 100, a)
            elif variant == "scaled_large":
                a = a * large
            elif variant == "scaled_small":
                a = a * 1e-2
            out.append(a.contiguous())
        return out

    def precision_inputs(self, args, seed):
        """Zero-mean inputs with full mantissas over a wide dynamic range, at each input's own scale: rounding
        the operands to TF32, fp16 or bf16 then no longer averages out (as it does on all-positive
        torch.rand inputs), so reduced-precision arithmetic misses fp32's tolerance."""
        g = torch.Generator(device=self.device)
        g.manual_seed(seed + 15485863)
        out = []
        for a in args:
            if not (isinstance(a, torch.Tensor) and a.is_floating_point()) or a.numel() == 0:
                out.append(a)
                continue
            rms = float(a.double().pow(2).mean().sqrt().item()) or 1.0
            x = torch.randn(a.shape, generator=g, device=self.device, dtype=torch.float32)
            spread = torch.exp2(torch.rand(a.shape, generator=g, device=self.device) * 6 - 3)
            out.append((x * spread * (rms / 2.0)).to(a.dtype).contiguous())
        return out

    def sparse_change(self, args, seed):
        """The problem's own inputs for `seed` with only a few interior elements changed: a result
        cache keyed on a sample of the inputs' contents then replays a stale answer."""
        g = torch.Generator(device="cpu")
        g.manual_seed(seed + 104729)
        out = []
        for a in args:
            if not (isinstance(a, torch.Tensor) and a.is_floating_point()) or a.numel() < 3:
                out.append(a)
                continue
            flat = a.detach().clone().contiguous().reshape(-1)
            n = flat.numel()
            idx = torch.randint(1, n - 1, (min(4, n - 2),), generator=g).to(flat.device)
            scale = float(flat.abs().max().item()) if n else 1.0
            flat[idx] = -flat[idx] + 0.5 * (scale if scale > 0 else 1.0)
            out.append(flat.reshape(a.shape))
        return out

    def reference(self, args):
        self.model.load_state_dict(self.initial_state)
        try:
            with torch.no_grad():
                ref = self.model(*args)
        except Exception as e:
            raise ProblemError(f"problem file {self.path}: the reference forward() raised "
                               f"{type(e).__name__}: {e}")
        outs = []
        for i, o in enumerate(as_list(ref)):
            if isinstance(o, (bool, int, float)):
                o = self.arg_tensors([o])[0]
            if not isinstance(o, torch.Tensor):
                raise ProblemError(f"problem file {self.path}: forward() output {i} is a {type(o).__name__}, "
                                   "not a tensor")
            outs.append(o.detach().contiguous())
        self.model.load_state_dict(self.initial_state)
        return outs

    def reference64(self, args):
        """The reference in float64 on the same inputs (exact upcasts of the float32 ones), for judging precision
        on every checked trial: the candidate's error against it is set beside the float32 reference's own.
        Only for fp32 problems; None for an output that does not come out as float64, and for all of them where
        the float64 forward cannot run (an operator without a float64 kernel, memory)."""
        if self.fdtype != torch.float32:
            return None
        try:
            if self.model64 is None:
                self.model64 = copy.deepcopy(self.model).to(torch.float64)
                self.state64 = {k: v.to(torch.float64) if v.is_floating_point() else v
                                for k, v in self.initial_state.items()}
            self.model64.load_state_dict(self.state64)
            args64 = [a.to(torch.float64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                      for a in args]
            with torch.no_grad():
                outs = as_list(self.model64(*args64))
            self.model64.load_state_dict(self.state64)
        except Exception:  # the float32 reference ran: this one is only an extra yardstick
            if self.device == "cuda":
                torch.cuda.empty_cache()
            return None
        return [o.detach().contiguous() if isinstance(o, torch.Tensor) and o.dtype == torch.float64 else None
                for o in outs]

    def reference_shapes(self, args):
        return [list(o.shape) for o in self.reference(args)]

    def make_inputs(self, seed, variant):
        args = self.apply_variant(self.gen_args(seed), variant, seed)
        return args, self.reference(args)

    def all_inputs(self, args):
        state = [v for v in self.initial_state.values()] if self.export_state else []
        return self.arg_tensors(args) + state

    def encoded_init_inputs(self):
        """get_init_inputs() as JSON for a kernelbench runner, which builds ModelNew from them without importing
        the problem: tuples, tensors (small ones), dtypes and non-finite floats tagged."""
        def enc(v):
            if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
                return v
            if isinstance(v, float):
                return v if math.isfinite(v) else {"__float__": repr(v)}
            if isinstance(v, tuple):
                return {"__tuple__": [enc(x) for x in v]}
            if isinstance(v, list):
                return [enc(x) for x in v]
            if isinstance(v, dict) and all(isinstance(k, str) for k in v):
                return {k: enc(x) for k, x in v.items()}
            if isinstance(v, torch.dtype):
                return {"__dtype__": str(v).replace("torch.", "")}
            if isinstance(v, torch.Tensor) and v.numel() <= 65536:
                return {"__tensor__": {"dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape),
                                       "data": [enc(x) for x in v.detach().cpu().reshape(-1).tolist()]}}
            raise ProblemError(f"problem file {self.path}: get_init_inputs() returns a {type(v).__name__}, which "
                               "kforge cannot pass to a kernelbench solution's ModelNew")
        return [enc(v) for v in self.init_inputs]
