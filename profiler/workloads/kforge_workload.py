"""Shared harness for the profiler workloads: device choice, warm-up, the measured region and its report.

The measured region is marked three ways at once, all on the same clock as the CUPTI records:
  * an NVTX range named $KFORGE_REGION_MARKER (default "kforge.measure"), which CUPTI records as markers when
    NVTX is routed to it (libkforge-cupti.so points NVTX_INJECTION64_PATH at libcupti);
  * kforge_region_begin/end in libkforge-cupti.so ($KFORGE_CUPTI_LIB), called through ctypes, which stamp
    cuptiGetTimestamp() (used when the NVTX range did not reach CUPTI);
  * CUDA events around the same steps, printed for the cross-check with the profiler.
The region opens after a device synchronization and closes after another, so it holds exactly the measured
steps' GPU work plus their launch gaps.
"""
import argparse
import ctypes
import json
import os
import sys
import time

import torch

MARKER = os.environ.get("KFORGE_REGION_MARKER", "kforge.measure")


def base_parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--warmup", type=int, default=None, help="warm-up steps (excluded from the region)")
    p.add_argument("--steps", type=int, default=None, help="measured steps")
    p.add_argument("--smoke", action="store_true", help="tiny sizes, any device: checks the script runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report", default=os.environ.get("KFORGE_WORKLOAD_REPORT", ""),
                   help="also append the result line (JSON) to this file")
    return p


def device_for(args):
    if torch.cuda.is_available():
        return torch.device("cuda")
    if args.smoke:
        return torch.device("cpu")
    sys.exit("this workload needs a CUDA GPU (use --smoke for a CPU check of the script)")


class _ExplicitMarks:
    def __init__(self):
        self.lib = None
        path = os.environ.get("KFORGE_CUPTI_LIB", "")
        if path:
            try:
                # Loaded already by the CUDA driver; dlopen of the same path returns that copy.
                self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                self.lib.kforge_region_begin.argtypes = [ctypes.c_char_p]
                self.lib.kforge_region_end.argtypes = [ctypes.c_char_p]
            except (OSError, AttributeError) as e:
                print(f"kforge-workload: explicit region marks unavailable ({e})", file=sys.stderr)
                self.lib = None

    def begin(self, name):
        if self.lib is not None:
            self.lib.kforge_region_begin(name.encode())

    def end(self, name):
        if self.lib is not None:
            self.lib.kforge_region_end(name.encode())


def _nvtx(fn, *a):
    try:
        fn(*a)
    except Exception:  # CPU-only torch builds have no NVTX
        pass


class MeasuredRegion:
    """with MeasuredRegion(device) as r: ...measured steps...; then r.event_ms, r.host_ms."""

    def __init__(self, device):
        self.device = device
        self.cuda = device.type == "cuda"
        self.marks = _ExplicitMarks()
        self.event_ms = None
        self.host_ms = None

    def _sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def __enter__(self):
        self._sync()
        self.marks.begin(MARKER)
        if self.cuda:
            _nvtx(torch.cuda.nvtx.range_push, MARKER)
            self.start_event = torch.cuda.Event(enable_timing=True)
            self.end_event = torch.cuda.Event(enable_timing=True)
            self.start_event.record()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            self.end_event.record()
        self._sync()
        self.host_ms = (time.perf_counter() - self.t0) * 1e3
        if self.cuda:
            _nvtx(torch.cuda.nvtx.range_pop)
            self.event_ms = self.start_event.elapsed_time(self.end_event)
        self.marks.end(MARKER)
        return False


def run(name, args, step, warmup, steps, extra=None):
    """Runs `step()` warmup times, then `steps` times inside the measured region, and prints one result line."""
    device = device_for(args)
    for _ in range(warmup):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    with MeasuredRegion(device) as region:
        for _ in range(steps):
            step()
    result = {
        "workload": name,
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "warmup_steps": warmup,
        "measured_steps": steps,
        "event_ms": region.event_ms,
        "host_ms": region.host_ms,
        "marker": MARKER,
    }
    if device.type == "cuda":
        result["max_memory_gib"] = torch.cuda.max_memory_allocated() / 2**30
    result.update(extra or {})
    line = "KFORGE_WORKLOAD " + json.dumps(result)
    print(line, flush=True)
    if args.report:
        with open(args.report, "a") as f:
            f.write(json.dumps(result) + "\n")
    return result


def autocast(device, enabled=True):
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=enabled)
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=False)
