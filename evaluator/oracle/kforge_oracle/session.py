"""What one oracle session holds: the loaded problem (hello, load) and the transport buffers it exports to the
candidate's runner (setup, release): one dedicated allocation per input and output of every slot, tmpfs files on
the host backend and CUDA IPC handles on cuda, each read through a view of the current trial's shape.
"""
import gc
import math
import os
import sys

import torch

from kforge_oracle.protocol import CandidateError
from kforge_oracle.problem import DTYPES, Problem
from kforge_oracle.gpu import CudaRuntime, CudaBytes


class SessionOps:
    """Mixed into Oracle (oracle.py), which holds the state."""

    def op_hello(self, req):
        info = {"torch": torch.__version__, "python": sys.version.split()[0],
                "cuda": torch.version.cuda or "", "gpu_name": "", "gpu_arch": "", "l2_bytes": 0}
        if req.get("backend") == "cuda" and torch.cuda.is_available():
            p = torch.cuda.get_device_properties(torch.cuda.current_device())
            info["gpu_name"] = p.name
            info["gpu_arch"] = f"sm_{p.major}{p.minor}"
            info["l2_bytes"] = int(getattr(p, "L2_cache_size", 0))
            info["multiprocessors"] = p.multi_processor_count
        return info

    def op_load(self, req):
        dev = self.device(req["backend"])
        export_state = bool(req.get("export_state", True))
        p = self.problem
        if p is None or p.path != req["path"] or p.precision != req["precision"] or p.device != dev or \
                p.export_state != export_state:
            self.drop_problem()
            self.problem = Problem(req["path"], req["precision"], dev, export_state)
        p = self.problem
        res = {"inputs": p.input_specs, "outputs": p.output_specs, "input_generator": p.input_generator,
               "num_forward_args": p.num_args, "arg_kinds": p.arg_kinds}
        if not export_state:
            res["init_inputs"] = p.encoded_init_inputs()
        return res

    def op_setup(self, req):
        """Allocates the exported buffers: inputs and outputs only, one dedicated allocation each."""
        p = self.need_problem()
        self.release()
        job = req["dir"]
        bufs = []
        # Buffers hold the largest trial the evaluation announced; each trial then uses a view of its own size.
        capacity = [list(s["shape"]) for s in p.input_specs + p.output_specs]
        self.announced = [int(x) for x in req.get("seeds", [])]
        if p.varying:
            for seed in req.get("seeds", []):
                for i, shape in enumerate(p.trial_shapes(int(seed))):
                    if math.prod(shape) > math.prod(capacity[i]):
                        capacity[i] = shape
        specs = [("input", i, s) for i, s in enumerate(p.input_specs)] + \
                [("output", i, s) for i, s in enumerate(p.output_specs)]
        dt_of = {v[0]: k for k, v in DTYPES.items()}
        slots = max(1, int(req.get("slots", 1)))
        for slot, (k, (role, i, s)) in [(sl, ks) for sl in range(slots) for ks in enumerate(specs)]:
            dt = dt_of[s["dtype"]]
            nbytes = math.prod(capacity[k]) * torch.empty((), dtype=dt).element_size()
            b = {"role": role, "index": i, "name": s["name"], "dtype": s["dtype"], "code": DTYPES[dt][1],
                 "shape": s["shape"], "nbytes": nbytes, "slot": slot}
            if p.device == "cuda":
                if self.cuda is None:
                    self.cuda = CudaRuntime()
                ptr = self.cuda.malloc(nbytes)
                b["_ptr"] = ptr
                b["ipc_handle"] = self.cuda.ipc_handle(ptr)
                raw = torch.as_tensor(CudaBytes(ptr, max(nbytes, 1)), device="cuda")[:nbytes]
            else:
                path = os.path.join(job, f"{role}{i}_slot{slot}.bin")
                with open(path, "wb") as f:
                    f.truncate(max(nbytes, 1))
                b["file"] = path
                raw = torch.from_file(path, shared=True, size=max(nbytes, 1), dtype=torch.uint8)[:nbytes]
            b["_raw"], b["_dtype"] = raw, dt
            b["_t"] = self.view_of(b, s["shape"], p.device)
            bufs.append(b)
        self.buffers = bufs
        self.slots = slots
        self.round = None
        return {"buffers": [{k: v for k, v in b.items() if not k.startswith("_")} for b in bufs]}

    @staticmethod
    def view_of(b, shape, device):
        """The buffer's first bytes as a tensor of `shape` (the current trial's)."""
        dt = b["_dtype"]
        nbytes = math.prod(shape) * torch.empty((), dtype=dt).element_size()
        if nbytes > b["nbytes"]:
            raise RuntimeError(f"{b['role']} '{b['name']}' needs {nbytes} bytes for shape {list(shape)} but its "
                               f"buffer holds {b['nbytes']}: the trial's seed was not announced at setup")
        return b["_raw"][:nbytes].view(dt).reshape(shape) if nbytes else torch.empty(shape, dtype=dt, device=device)

    def release(self):
        if self.buffers:
            for b in self.buffers:
                b.pop("_t", None)
                b.pop("_raw", None)
                if "_ptr" in b and self.cuda is not None:
                    torch.cuda.synchronize()
                    self.cuda.free(b["_ptr"])
        self.buffers = None
        self.trial = None
        self.round = None
        self.baseline_sets = None

    def drop_problem(self):
        """Frees everything the previous problem held before the next one is loaded: its model, state and cached
        tensors can be many GB (level 1's activations are 6.4 GB an input). The Problem sits in a reference cycle,
        so without a collection here it lived until Python's cycle collector happened to run, and one reverify's
        oracle ran out of the H200's memory after eight such problems."""
        self.release()
        p, self.problem = self.problem, None
        if p is not None:
            p.__dict__.clear()  # whatever still refers to the object no longer keeps its tensors alive
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def op_release(self, req):
        self.release()
        return {}

    def need_problem(self):
        if self.problem is None:
            raise RuntimeError("no problem loaded")
        return self.problem

    def out_bufs(self, slot=0):
        return [b for b in self.buffers if b["role"] == "output" and b["slot"] == slot]

    def in_bufs(self, slot=0):
        return [b for b in self.buffers if b["role"] == "input" and b["slot"] == slot]

    def check_files(self):
        """Host buffers are files the runner can also open: a truncated one would kill this process with
        SIGBUS on the next access, so their sizes are checked first (the runner is frozen meanwhile)."""
        for b in self.buffers or []:
            if "file" in b:
                try:
                    size = os.stat(b["file"]).st_size
                except OSError as e:
                    raise CandidateError(f"buffer file {os.path.basename(b['file'])} is gone ({e})")
                if size < max(b["nbytes"], 1):
                    raise CandidateError(f"buffer file {os.path.basename(b['file'])} was truncated to {size} "
                                         f"bytes (it holds {b['nbytes']})")
