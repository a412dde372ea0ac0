"""kforge oracle: the trusted, long-lived torch process of one evaluator (one per GPU).

Speaks JSON lines with the C++ supervisor: one request per line on stdin, one response per line on the
private protocol descriptor (the original stdout; fd 1 is redirected to stderr so that a problem file
printing something cannot corrupt the protocol). See docs/evaluator.md ("Oracle protocol").

It loads KernelBench-format problems, makes inputs per seed and distribution, computes reference outputs,
writes inputs into transport buffers, poisons output buffers, compares the candidate's outputs with the
reference (statistics only: the decision is the C++ judge's), times the baselines (eager, torch.compile) and
counts the reference's work for the roofline. Reference outputs live only in this process's own memory;
exported buffers are dedicated allocations.

This file is the program (data_path "evaluator/oracle/oracle.py", run as `python3 -u oracle.py` by whatever
python with torch the user names; oracle_client.cpp starts it with the oracle profile, which has no mount
namespace, so it reads kforge's files where they are); its modules are the package beside it,
kforge_oracle/, one per group of requests: protocol (the channels), problem (a loaded problem file and its
inputs), statistics (output comparisons), session (loaded problem, transport buffers), trials (prepare,
poison, compare, trivial), timing (the timed rounds), gpu (libcudart, NVML, device checks), yardsticks
(compile baseline, roofline, peaks) and replay (trusted replay of extension calls). The package is found
through this file's own folder (kforge's installed or source tree, never a candidate's), put first on
sys.path; they leave no bytecode beside them.
"""
import gc
import json
import os
import sys
import traceback

_here = os.path.dirname(os.path.abspath(__file__))
if not sys.path or sys.path[0] != _here:
    sys.path.insert(0, _here)
# kforge's own modules leave no __pycache__ in kforge's tree; what else the oracle imports (torch, problem
# files) is cached as Python would.
_dont_write_bytecode = sys.dont_write_bytecode
sys.dont_write_bytecode = True
from kforge_oracle import protocol  # noqa: E402  (imports no torch: the channels come first)
sys.dont_write_bytecode = _dont_write_bytecode

_requests = protocol.open_channels(sys.argv)

import ctypes  # noqa: E402

import torch  # noqa: E402

sys.dont_write_bytecode = True
from kforge_oracle.gpu import DeviceOps  # noqa: E402
from kforge_oracle.protocol import CandidateError, ProblemError, SetupError, send  # noqa: E402
from kforge_oracle.replay import ReplayOps  # noqa: E402
from kforge_oracle.session import SessionOps  # noqa: E402
from kforge_oracle.timing import TimingOps  # noqa: E402
from kforge_oracle.trials import TrialOps  # noqa: E402
from kforge_oracle.yardsticks import YardstickOps  # noqa: E402
sys.dont_write_bytecode = _dont_write_bytecode


class Oracle(SessionOps, TrialOps, TimingOps, DeviceOps, YardstickOps, ReplayOps):
    """One request `op` is answered by the method op_<op>; the groups of them are the mixins above. The state
    they share is named here, but for what is made on first use (peaks, the timing's L2 flush buffer)."""

    def __init__(self):
        self.problem = None
        self.cuda = None
        self.buffers = None  # list of dicts with tensor views
        self.trial = None
        self.bandwidth = None
        self.slots = 1
        self.round = None
        self.baseline_sets = None  # the baseline's calls: views of the slots' input buffers (op_baseline_round)
        self.sampler = None  # draws a sampled check's positions (seeded from the OS's entropy per check)
        self.announced = []
        self.nvml = None
        self.replay = None  # the validated record of a trial's extension calls (op_replay_prepare)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def device(self, backend):
        if backend == "cuda":
            if not torch.cuda.is_available():
                raise SetupError("the cuda backend needs a GPU, but torch sees none "
                                 "(use --backend host on machines without a GPU)")
            return "cuda"
        return "cpu"


def make_not_dumpable():
    """The oracle holds reference outputs: no ptrace attach, no /proc/<pid>/mem for other processes."""
    try:
        PR_SET_DUMPABLE = 4
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: nothing to do


def call_freeing_memory(fn, req):
    """Runs one op; on a CUDA out-of-memory error frees what is only cached or unreachable (the previous trial's
    tensors, the allocator's cache) and runs it once more: ops rebuild their state from the request and the
    buffers, and a transient shortage of a 6.4 GB problem must not become a harness error."""
    try:
        return fn(req)
    except torch.cuda.OutOfMemoryError:
        pass  # leave the except block first: its traceback holds the failed op's frames and their tensors
    gc.collect()
    torch.cuda.empty_cache()
    return fn(req)


def main():
    make_not_dumpable()
    oracle = Oracle()
    for line in _requests:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            fn = getattr(oracle, "op_" + req.get("op", ""), None)
            if fn is None:
                send({"ok": False, "kind": "harness", "error": f"unknown op {req.get('op')}"})
                continue
            res = call_freeing_memory(fn, req)
            res["ok"] = True
            send(res)
        except ProblemError as e:
            send({"ok": False, "kind": "problem", "error": str(e)})
        except CandidateError as e:
            send({"ok": False, "kind": "candidate", "error": str(e)})
        except SetupError as e:
            send({"ok": False, "kind": "harness", "error": str(e)})
        except Exception as e:  # harness failure: report with the traceback tail
            tb = traceback.format_exc()
            send({"ok": False, "kind": "harness", "error": f"{type(e).__name__}: {e}", "traceback": tb[-4000:]})


if __name__ == "__main__":
    main()
