"""kforge KernelBench runner: the UNTRUSTED side of a kernelbench-kind evaluation.

The python counterpart of kforge-runner (evaluator/runner/runner_main.cpp), started through the sandbox in
the same way (Profile::runner, a fresh process per evaluation, frozen between rounds) and speaking the same
protocol: it reads <job>/job.json, maps the buffer slots (tmpfs files on host, CUDA IPC handles on cuda),
reports {"ok":true,"stage":"mapped"} and serves calibration rounds (order [], "touch_bytes" zeroed over every
slot's outputs, then inputs, cycling, and "touched_bytes" in the answer: the supervisor measures the harness's
own cost of a round while no solution code exists here) until {"op":"load"}, then reports
{"ok":true,"stage":"loading"}, imports the solution and builds ModelNew, reports ready, then serves one JSON
command per line on --cmd-fd:
  {"op":"round", "order":[s0, s1, ...], "shapes":[...]}   model(*args) once per listed slot, each result
                                                          copied into the slot's output buffers, then one
                                                          device synchronisation; answered when complete
    (with "record": N, a one-slot round also writes its extension calls to <job>/record/, at most N bytes of
     tensors: the trusted replay's material, see Recorder)
  {"op":"exit"}
and answers each with one JSON line on --report-fd (never stdout: the solution may print there). Once the
solution is imported everything in this process is the solution's: nothing reported here decides a verdict
or a time except as evidence against it (a round in which no custom kernel ran). docs/candidates.md.

Why one file of ~630 lines: once the solution is imported it shares this process, so the runner keeps its own
code out of reach as one module: its functions bind what they use as default arguments when this file is
read, `__main__` is replaced by an empty module before the solution loads, and the only other module
(extension_call, shared with the build recorder) is dropped from sys.modules. Every further module would be
one more entry to hide and one more set of globals the solution could rebind, and one more file copied into
each job folder (runner_launch.cpp), a folder the solution's process can write.
"""
import ctypes
import importlib.machinery
import importlib.util
import json
import os
import select
import sys
import time
import traceback
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extension_call  # noqa: E402

_args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
_report_fd = int(_args.get("--report-fd", "-1"))
_cmd_fd = int(_args.get("--cmd-fd", "-1"))
_job_dir = _args.get("--job", "")


# The runner's own functions take what they use as default arguments, bound when this module is read (before
# any solution code): a solution that replaces os.write, os._exit, select.select or json.dumps afterwards (the
# static check refuses that; this is the second line) does not change what the runner does.
def report(obj, _dumps=json.dumps, _write=os.write, _exit=os._exit, _OSError=OSError):
    data = (_dumps(obj, allow_nan=False, default=str) + "\n").encode()
    while data:
        try:
            n = _write(_report_fd, data)
        except _OSError:
            _exit(4)
        data = data[n:]


def fail(code, detail, _report=report, _exit=os._exit, _str=str):
    _report({"ok": False, "code": code, "detail": _str(detail)[-4000:]})
    _exit(3)


# How much of its own CPU time the runner spends polling for the next command before it blocks in read():
# a command that finds it asleep waits for the scheduler, noise inside the timed round. CPU time, because the
# supervisor freezes the runner between rounds and the poll must still be going on when it is thawed.
COMMAND_SPIN_CPU_S = 0.05


def wait_readable(fd, _select=select.select, _thread_time=time.thread_time):
    until = _thread_time() + COMMAND_SPIN_CPU_S
    while not _select([fd], [], [], 0)[0]:
        if _thread_time() > until:
            return


def read_lines(fd, _read=os.read, _wait=wait_readable):
    buf = b""
    while True:
        if CUDA:
            _wait(fd)
        chunk = _read(fd, 65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line


if _report_fd < 0 or _cmd_fd < 0 or not _job_dir:
    sys.stderr.write("usage: runner.py --job DIR --cmd-fd N --report-fd M (started by kforge eval)\n")
    sys.exit(2)

try:
    with open(os.path.join(_job_dir, "job.json")) as fh:
        JOB = json.load(fh)
except (OSError, ValueError) as e:
    fail("harness.job", f"cannot read {_job_dir}/job.json: {e}")

CUDA = JOB.get("backend") == "cuda"
os.environ["TRITON_CACHE_DIR"] = os.path.join(_job_dir, "triton-cache")

try:
    import torch
except Exception as e:  # noqa: BLE001 - the harness's python is broken: say so
    fail("harness.torch", f"cannot import torch in the runner's python {sys.executable}: {type(e).__name__}: {e}")

# kforge.h's dtype codes.
DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.bfloat16, 3: torch.float64, 4: torch.int64, 5: torch.int32,
          6: torch.bool, 7: torch.int8, 8: torch.uint8}
PRECISIONS = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
DEVICE = "cuda" if CUDA else "cpu"

# What the runner itself uses, taken before the solution can replace any of it from Python.
_copy = torch.Tensor.copy_
_Tensor = torch.Tensor
_type = type
_no_torch_function = torch._C.DisableTorchFunction
_strided = torch.strided
_is_functional = getattr(torch._C, "_is_functional_tensor", lambda t: False)
_perf_counter = time.perf_counter
_no_grad = torch.no_grad
_manual_seed = torch.manual_seed
if CUDA:
    _synchronize = torch.cuda.synchronize
    _current_stream = torch.cuda.current_stream
    _Event = torch.cuda.Event
    _record = torch.cuda.Event.record
    _elapsed = torch.cuda.Event.elapsed_time


class CudaIpc:
    """cudaIpcOpenMemHandle through the libcudart torch itself loaded (the one that holds its context)."""

    class Handle(ctypes.Structure):
        _fields_ = [("reserved", ctypes.c_char * 64)]

    def __init__(self):
        self.lib = None
        candidates = []
        try:
            with open("/proc/self/maps") as maps:
                for line in maps:
                    path = line.split()[-1] if len(line.split()) >= 6 else ""
                    if "libcudart.so" in os.path.basename(path) and path not in candidates:
                        candidates.append(path)
        except OSError:
            pass
        candidates += ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]
        for name in candidates:
            try:
                self.lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if self.lib is None:
            fail("harness.cudart", "cannot find the libcudart torch uses, for CUDA IPC")
        self.lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), CudaIpc.Handle, ctypes.c_uint]
        self.lib.cudaGetErrorName.restype = ctypes.c_char_p
        # Spin-wait in synchronisations (cudaDeviceScheduleSpin), as kforge-runner does: a blocking wait's
        # wake-up varies with how long the core slept and lands inside the timed round. Only noise is at stake,
        # so a refusal is ignored.
        self.lib.cudaSetDeviceFlags.argtypes = [ctypes.c_uint]
        self.lib.cudaSetDeviceFlags(1)

    def open(self, hex_handle):
        h = CudaIpc.Handle.from_buffer_copy(bytes.fromhex(hex_handle)[:64].ljust(64, b"\0"))
        ptr = ctypes.c_void_p()
        rc = self.lib.cudaIpcOpenMemHandle(ctypes.byref(ptr), h, 1)  # cudaIpcMemLazyEnablePeerAccess
        if rc != 0:
            fail("runtime_error.cuda", f"cudaIpcOpenMemHandle: {self.lib.cudaGetErrorName(rc).decode()}")
        return ptr.value


class _CudaBytes:
    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes),), "typestr": "|u1", "data": (ptr, False),
                                         "version": 2, "strides": None}


class Buffer:
    def __init__(self, spec, ipc):
        self.dtype = DTYPES.get(int(spec["code"]))
        if self.dtype is None:
            fail("harness.job", f"unknown dtype code {spec['code']}")
        self.nbytes = int(spec["nbytes"])
        self.shape = [int(d) for d in spec["shape"]]
        if CUDA:
            ptr = ipc.open(spec["ipc_handle"])
            self.raw = torch.as_tensor(_CudaBytes(ptr, max(self.nbytes, 1)), device="cuda")[:self.nbytes]
        else:
            try:
                self.raw = torch.from_file(spec["file"], shared=True, size=max(self.nbytes, 1),
                                           dtype=torch.uint8)[:self.nbytes]
            except Exception as e:  # noqa: BLE001
                fail("harness.map", f"cannot map buffer {spec['file']}: {e}")

    def view(self):
        numel = 1
        for d in self.shape:
            numel *= d
        size = numel * torch.empty((), dtype=self.dtype).element_size()
        if numel == 0:
            return torch.empty(self.shape, dtype=self.dtype, device=DEVICE)
        return self.raw[:size].view(self.dtype).reshape(self.shape)

    def set_shape(self, shape):
        if not isinstance(shape, list) or len(shape) > 8:
            fail("protocol.command", "bad shape in command")
        numel = 1
        for d in shape:
            if not isinstance(d, int) or isinstance(d, bool) or d < 0:
                fail("protocol.command", "bad dimension in command")
            numel *= d
        if numel * torch.empty((), dtype=self.dtype).element_size() > self.nbytes:
            fail("protocol.command", "shape larger than its buffer in command")
        self.shape = list(shape)


class Counter:
    calls = 0


class Recorder:
    """The calls into kforge-built extension functions of one round, for the trusted replay (docs/candidates.md,
    "Attribution"): each call's extension key, function, arguments (tensors copied before the call), the tensor
    arguments after it and what it returned, written to <job>/record/ after the round. Evidence only: the trusted
    side re-runs the calls without this process and believes nothing of the record it cannot reproduce."""
    active = False
    max_bytes = 0
    calls = []
    tensors = []
    nbytes = 0
    unsupported = ""

    @classmethod
    def start(cls, max_bytes):
        cls.active, cls.max_bytes, cls.calls, cls.tensors, cls.nbytes, cls.unsupported = True, max_bytes, [], [], 0, ""

    @classmethod
    def tensor(cls, t):
        if cls.unsupported:
            return None
        if _type(t) is not _Tensor or t.layout != _strided:
            cls.unsupported = "an argument or result is not a plain strided tensor"
            return None
        n = t.numel() * t.element_size()
        if cls.nbytes + n > cls.max_bytes or len(cls.tensors) >= 4096:
            cls.unsupported = f"the recorded tensors exceed {cls.max_bytes} bytes"
            return None
        cls.nbytes += n
        with _no_torch_function():
            cls.tensors.append(t.detach().to("cpu", copy=True).contiguous())
        return len(cls.tensors) - 1

    @classmethod
    def value(cls, v):
        kind = _type(v)
        if kind is bool:
            return {"bool": v}
        if kind is int:
            return {"int": v}
        if kind is float:
            return {"float": v if v == v and abs(v) != float("inf") else str(v)}
        if v is None:
            return {"none": True}
        if kind in (list, tuple) and len(v) <= 64 and all(_type(x) in (int, float, bool) for x in v):
            return {"list": [cls.value(x) for x in v]}
        if isinstance(v, _Tensor):
            return {"tensor": cls.tensor(v)}
        cls.unsupported = f"an argument or result of type {kind.__name__[:60]}"
        return {"none": True}

    @classmethod
    def call(cls, key, name, fn, args, kwargs):
        if kwargs:
            cls.unsupported = "an extension function was called with keyword arguments"
        if cls.unsupported or len(cls.calls) >= 256:
            cls.unsupported = cls.unsupported or "more than 256 extension calls in one forward"
            return fn(*args, **kwargs)
        before = [cls.value(a) for a in args]
        result = fn(*args, **kwargs)
        after = [cls.tensor(a) if isinstance(a, _Tensor) else None for a in args]
        outs = list(result) if _type(result) in (list, tuple) else [result]
        cls.calls.append({"ext": key, "fn": name, "args": before, "after": after,
                          "returns": [cls.value(o) for o in outs]})
        return result

    @classmethod
    def write(cls, folder):
        cls.active = False
        os.makedirs(folder, exist_ok=True)
        specs = []
        for i, t in enumerate(cls.tensors):
            specs.append({"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)})
            with open(os.path.join(folder, f"t{i}.bin"), "wb") as fh:
                if t.numel():
                    fh.write(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        with open(os.path.join(folder, "calls.json"), "w") as fh:
            json.dump({"calls": cls.calls, "tensors": specs, "unsupported": cls.unsupported}, fh)
        cls.calls, cls.tensors = [], []


def counted(fn, key=None):
    name = getattr(fn, "__name__", "kernel")

    def call(*args, **kwargs):
        Counter.calls += 1
        if Recorder.active and key is not None:
            return Recorder.call(key, name, fn, args, kwargs)
        return fn(*args, **kwargs)
    call.__name__ = name
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


def prebuilt_loader(extensions):
    """load_inline as the solution sees it here: the extension kforge built from the same arguments."""
    by_key = {e["key"]: e for e in extensions}
    loaded = {}

    def load_inline(*args, **kwargs):
        call = extension_call.normalise(*args, **kwargs)
        k = extension_call.key(call)
        if k not in by_key:
            names = sorted(e["name"] for e in extensions)
            raise RuntimeError(
                f"kforge: load_inline(name='{call['name'][:80]}') was called with arguments that were not seen when "
                f"the solution was built (built: {', '.join(names) or 'none'}); call load_inline with the same "
                "sources and flags when the module is imported")
        if k not in loaded:
            ext = by_key[k]
            loader = importlib.machinery.ExtensionFileLoader(ext["name"], ext["library"])
            spec = importlib.util.spec_from_file_location(ext["name"], ext["library"], loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            proxy = types.ModuleType(ext["name"])
            for attr in dir(module):
                value = getattr(module, attr)
                setattr(proxy, attr, counted(value, k) if callable(value) and not attr.startswith("__") else value)
            loaded[k] = proxy
        return loaded[k]

    def load(*args, **kwargs):
        raise RuntimeError("kforge: torch.utils.cpp_extension.load() of source files is not supported")

    return load_inline, load


def count_triton_launches():
    """Every Triton kernel launch (kernel[grid](...)) goes through JITFunction.run."""
    try:
        from triton.runtime.jit import JITFunction
    except Exception as e:  # noqa: BLE001
        fail("runtime_error.load", f"Triton could not be imported in the runner: {type(e).__name__}: {e}")
    JITFunction.run = counted(JITFunction.run)


def extension_module():
    """torch.utils.cpp_extension, or a stand-in where it cannot be imported (it needs setuptools): solutions
    reach load_inline through it either way."""
    try:
        import torch.utils.cpp_extension as module
    except Exception:  # noqa: BLE001
        module = types.ModuleType("torch.utils.cpp_extension")
        sys.modules["torch.utils.cpp_extension"] = module
        torch.utils.cpp_extension = module
    return module


def decode(value):
    """Init inputs as the oracle encoded them (JSON with tagged tuples, tensors, dtypes, non-finite floats)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if "__tuple__" in value:
            return tuple(decode(v) for v in value["__tuple__"])
        if "__float__" in value:
            return float(value["__float__"])
        if "__dtype__" in value:
            return getattr(torch, value["__dtype__"])
        if "__tensor__" in value:
            t = value["__tensor__"]
            return torch.tensor(decode(t["data"]), dtype=getattr(torch, t["dtype"])).reshape(t["shape"])
        return {k: decode(v) for k, v in value.items()}
    return value


def seed_all(seed):
    _manual_seed(seed)
    if CUDA:
        torch.cuda.manual_seed(seed)


def apply_seccomp(path, allow_subprocesses):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        fail("harness.seccomp", f"cannot load kforge's seccomp library {path}: {e}")
    err = ctypes.create_string_buffer(512)
    if lib.kf_apply_runner_seccomp(ctypes.c_int(1 if allow_subprocesses else 0), err, ctypes.c_size_t(512)) != 0:
        fail("harness.seccomp", err.value.decode(errors="replace"))


def main():
    ipc = None
    if CUDA:
        try:
            torch.cuda.set_device(int(JOB.get("device", 0)))
            torch.zeros(1, device="cuda")
        except Exception as e:  # noqa: BLE001
            fail("harness.cuda", f"CUDA could not be initialised in the runner: {type(e).__name__}: {e}")
        ipc = CudaIpc()
    slots = {}
    for spec in JOB["buffers"]:
        s = slots.setdefault(int(spec.get("slot", 0)), {"input": [], "output": []})
        s[spec["role"]].append(Buffer(spec, ipc))
    arg_kinds = JOB.get("arg_kinds", [])
    load_inline, load = prebuilt_loader(JOB.get("extensions", []))
    cpp_extension = extension_module()
    cpp_extension.load_inline, cpp_extension.load = load_inline, load
    if JOB.get("uses_triton"):
        count_triton_launches()
    if JOB.get("seccomp_library"):
        apply_seccomp(JOB["seccomp_library"], JOB.get("allow_subprocesses", False))

    commands = read_lines(_cmd_fd)
    report({"ok": True, "stage": "mapped"})
    for line in commands:
        try:
            cmd = json.loads(line)
        except ValueError:
            cmd = None
        op = cmd.get("op") if isinstance(cmd, dict) else None
        if op == "load":
            break
        if op == "exit":
            os._exit(0)
        if op != "round" or cmd.get("order") != []:
            fail("harness.protocol", "before the solution is loaded only empty rounds, load and exit are served")
        work, touched = touch(slots, cmd.get("touch_bytes"))
        answer = timed_round(work)
        if touched:
            answer["touched_bytes"] = touched
        report(answer)
    else:
        os._exit(0)

    report({"ok": True, "stage": "loading"})
    # The runner's own modules out of the solution's reach by name: `import __main__` (and
    # importlib.import_module('__main__')) finds an empty module, not this one; this module's functions keep
    # their own globals.
    runner_module = sys.modules["__main__"]  # kept alive here: its functions run the rounds
    sys.modules["__main__"] = types.ModuleType("__main__")
    sys.modules.pop("extension_call", None)
    # From here on the solution's code runs: its failures are its own.
    try:
        spec = importlib.util.spec_from_file_location("kforge_solution", JOB["solution"])
        module = importlib.util.module_from_spec(spec)
        sys.modules["kforge_solution"] = module
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: B902
        fail("runtime_error.load", f"importing the solution raised {type(e).__name__}: {e}\n" +
             traceback.format_exc()[-1500:])
    if not hasattr(module, "ModelNew"):
        fail("runtime_error.load", "the solution defines no ModelNew")
    try:
        # As the oracle builds Model (and KernelBench both): seed, init inputs, seed again, built on the CPU,
        # then moved to the device and cast to the precision.
        init = decode(JOB.get("init_inputs", []))
        seed_all(42)
        model = module.ModelNew(*init)
        if hasattr(model, "to"):
            model = model.to(DEVICE)
            model = model.to(PRECISIONS.get(JOB.get("precision", "fp32"), torch.float32))
    except BaseException as e:  # noqa: B902
        fail("runtime_error.load", f"building ModelNew raised {type(e).__name__}: {e}\n" +
             traceback.format_exc()[-1500:])
    report({"ok": True, "ready": True})

    def args_of(slot):
        out = []
        for kind, buf in zip(arg_kinds, slots[slot]["input"]):
            v = buf.view()
            if kind == "int":
                v = int(v.item())
            elif kind == "float":
                v = float(v.item())
            elif kind == "bool":
                v = bool(v.item())
            out.append(v)
        return out

    def store(slot, result):
        # Only plain objects are read: a list or tuple exactly, tensors exactly torch.Tensor (a subclass's own
        # methods would run inside the copy and decide what is written, and when), strided, not functional
        # wrappers. The copy itself runs with torch-function dispatch off: no Python code of the result's runs.
        kind = _type(result)
        outs = list(result) if kind is list or kind is tuple else [result]
        bufs = slots[slot]["output"]
        if len(outs) != len(bufs):
            raise OutputError(f"ModelNew.forward returned {len(outs)} outputs; the reference returns {len(bufs)}")
        for i, (o, b) in enumerate(zip(outs, bufs)):
            if _type(o) in (bool, int, float) and b.shape == []:
                o = torch.tensor(o, dtype=b.dtype, device=DEVICE)
            if _type(o) is not _Tensor:
                what = "a subclass of torch.Tensor" if isinstance(o, _Tensor) else "not a tensor"
                raise OutputError(f"output {i} of ModelNew.forward is a {_type(o).__name__[:80]}, {what}: return "
                                  "plain tensors")
            if o.layout != _strided or _is_functional(o):
                raise OutputError(f"output {i} of ModelNew.forward is not a plain strided tensor ({o.layout})")
            if o.dtype != b.dtype:
                raise OutputError(f"output {i} of ModelNew.forward has dtype {o.dtype}; the reference's is {b.dtype}")
            if list(o.shape) != b.shape:
                raise OutputError(f"output {i} of ModelNew.forward has shape {list(o.shape)}; the reference's is "
                                  f"{b.shape}")
            if o.device.type != DEVICE:
                raise OutputError(f"output {i} of ModelNew.forward is on {o.device.type}; the reference's is on "
                                  f"{DEVICE}")
            with _no_torch_function():
                _copy(b.view(), o)

    for line in commands:
        try:
            cmd = json.loads(line)
        except ValueError:
            cmd = None
        if not isinstance(cmd, dict):
            report({"ok": False, "code": "protocol.command", "detail": "unreadable command"})
            continue
        shapes = cmd.get("shapes")
        if shapes is not None:
            if not isinstance(shapes, list) or len(shapes) > len(slots):
                fail("protocol.command", "bad shapes in command")
            for k, sh in enumerate(shapes):
                if sh is None:
                    continue
                if not isinstance(sh, dict):
                    fail("protocol.command", "bad shapes in command")
                for role, key in (("input", "inputs"), ("output", "outputs")):
                    given = sh.get(key)
                    if not isinstance(given, list) or len(given) != len(slots[k][role]):
                        fail("protocol.command", "bad shapes in command")
                    for b, s in zip(slots[k][role], given):
                        b.set_shape(s)
        op = cmd.get("op")
        if op == "exit":
            break
        if op != "round":
            report({"ok": False, "code": "protocol.command", "detail": f"unknown command {str(op)[:100]}"})
            continue
        order = cmd.get("order")
        if not isinstance(order, list) or len(order) > 4096 or \
                any(not isinstance(s, int) or isinstance(s, bool) or s not in slots for s in order):
            fail("protocol.command", "bad order in command")
        before = Counter.calls
        record = cmd.get("record")
        if isinstance(record, int) and not isinstance(record, bool) and record > 0 and len(order) == 1:
            Recorder.start(record)

        def calls():
            with _no_grad():
                for s in order:
                    store(s, model(*args_of(s)))
        try:
            answer = timed_round(calls)
        except OutputError as e:
            fail("runtime_error.output", str(e))
        except BaseException as e:  # noqa: B902
            text = f"ModelNew.forward raised {type(e).__name__}: {e}"
            code = "runtime_error.cuda" if "CUDA error" in str(e) else "runtime_error.exception"
            fail(code, text + "\n" + traceback.format_exc()[-1500:])
        answer["custom_kernel_calls"] = Counter.calls - before
        if Recorder.active:
            try:
                Recorder.write(os.path.join(_job_dir, "record"))
            except Exception as e:  # noqa: BLE001 - no record: the trusted side says why
                answer["record_error"] = f"{type(e).__name__}: {e}"[:300]
        report(answer)
    os._exit(0)


def touch(slots, nbytes):
    """The stand-in for a solution's GPU work in the rounds before it is loaded: zeroes `nbytes` in all over every
    slot's outputs, then its inputs, cycling (at most 4096 fills; the oracle writes them all again before every
    trial and round). Returns the work and the bytes it writes."""
    if not CUDA or not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0:
        return (lambda: None), 0
    buffers = [b.raw for k in sorted(slots) for b in slots[k]["output"]] + \
              [b.raw for k in sorted(slots) for b in slots[k]["input"]]
    parts, done = [], 0
    for n in range(4096):
        if done >= nbytes or not buffers:
            break
        raw = buffers[n % len(buffers)]
        part = min(nbytes - done, raw.numel())
        if part > 0:
            parts.append(raw[:part])
            done += part

    def work():
        for part in parts:
            part.zero_()
    return work, done


def timed_round(calls):
    """Runs `calls` between CUDA events on the current stream, then waits for that stream and for the whole
    device: how long the device stays busy after the stream is done is work that escaped it."""
    if not CUDA:
        calls()
        return {"ok": True, "events_ms": 0.0, "device_tail_ms": 0.0}
    start, stop = _Event(enable_timing=True), _Event(enable_timing=True)
    _record(start)
    calls()
    _record(stop)
    _current_stream().synchronize()
    t0 = _perf_counter()
    _synchronize()
    tail = (_perf_counter() - t0) * 1e3
    ms = float(_elapsed(start, stop))
    return {"ok": True, "events_ms": ms if ms == ms and abs(ms) != float("inf") else 0.0, "device_tail_ms": tail}


class OutputError(Exception):
    """ModelNew returned something that does not fit the reference's outputs."""


if __name__ == "__main__":
    main()
