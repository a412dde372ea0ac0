"""kforge replayer: re-runs a KernelBench solution's recorded extension calls WITHOUT the solution's Python.

Started by the supervisor beside the runner, as a fresh process through the same sandbox (Profile::runner: the
extensions are the candidate's native code), with a job folder of its own that holds job.json and copies of the
extensions from kforge's build cache (written by the supervisor), and a folder it sees read-only (job.json's
"input") where the oracle later writes replay.json with the recorded calls' arguments, after validating the
runner's record. The solution's module is never imported.

Protocol (as runner.py): answers one JSON line per command on --report-fd: {"ok":true,"stage":"ready"} once torch,
the device and the extensions are loaded and the system-call filter applied; then {"op":"replay"} runs every call
in order on its recorded arguments and writes result.json and r<N>.bin (each call's returned tensors and its
tensor arguments after the call; `free` lists the tensor arguments whose contents changed nothing the call
produced: a second run with that argument filled with a sentinel gave the same bytes), answering {"ok":true};
{"op":"exit"} ends it. Everything written here is read by the oracle as hostile input: the extensions ran here.
"""
import ctypes
import importlib.machinery
import importlib.util
import json
import os
import sys

_args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
_report_fd = int(_args.get("--report-fd", "-1"))
_cmd_fd = int(_args.get("--cmd-fd", "-1"))
_job_dir = _args.get("--job", "")


def report(obj):
    data = (json.dumps(obj, allow_nan=False, default=str) + "\n").encode()
    while data:
        try:
            n = os.write(_report_fd, data)
        except OSError:
            os._exit(4)
        data = data[n:]


def fail(code, detail):
    report({"ok": False, "code": code, "detail": str(detail)[-2000:]})
    os._exit(3)


def commands():
    buf = b""
    while True:
        chunk = os.read(_cmd_fd, 65536)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                cmd = json.loads(line)
            except ValueError:
                cmd = None
            yield cmd if isinstance(cmd, dict) else {}


def main():
    if _report_fd < 0 or _cmd_fd < 0 or not _job_dir:
        sys.stderr.write("usage: replay.py --job DIR --cmd-fd N --report-fd M (started by kforge eval)\n")
        sys.exit(2)
    with open(os.path.join(_job_dir, "job.json")) as fh:
        job = json.load(fh)
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        fail("replay.torch", f"cannot import torch: {type(e).__name__}: {e}")
    device = "cuda" if job.get("backend") == "cuda" else "cpu"
    if device == "cuda":
        torch.cuda.set_device(int(job.get("device", 0)))
        torch.zeros(1, device="cuda")
    lib = ctypes.CDLL(job["seccomp_library"])
    err = ctypes.create_string_buffer(512)
    if lib.kf_apply_runner_seccomp(ctypes.c_int(0), err, ctypes.c_size_t(512)) != 0:
        fail("replay.seccomp", err.value.decode(errors="replace"))
    modules = {}
    for ext in job.get("extensions", []):
        try:
            loader = importlib.machinery.ExtensionFileLoader(ext["name"], ext["library"])
            spec = importlib.util.spec_from_file_location(ext["name"], ext["library"], loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
        except BaseException as e:  # noqa: B902
            fail("replay.load", f"loading extension {ext['name']}: {type(e).__name__}: {e}")
        modules[ext["key"]] = module
    report({"ok": True, "stage": "ready"})
    for cmd in commands():
        if cmd.get("op") == "replay":
            try:
                replay(torch, device, modules, job["input"])
            except BaseException as e:  # noqa: B902
                fail("replay.failed", f"{type(e).__name__}: {e}")
            report({"ok": True})
        elif cmd.get("op") == "exit":
            break
    os._exit(0)


def replay(torch, device, modules, input_dir):
    with open(os.path.join(input_dir, "replay.json")) as fh:
        spec = json.load(fh)
    inputs = []
    for i, t in enumerate(spec["tensors"]):
        dtype = getattr(torch, t["dtype"])
        with open(os.path.join(input_dir, f"in{i}.bin"), "rb") as fh:
            data = bytearray(fh.read())
        flat = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
        inputs.append(flat.reshape(t["shape"]).to(device))
    out_specs, calls = [], []

    def save(t):
        t = t.detach().to("cpu").contiguous()
        with open(os.path.join(_job_dir, f"r{len(out_specs)}.bin"), "wb") as fh:
            if t.numel():
                fh.write(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        out_specs.append({"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)})
        return len(out_specs) - 1

    def value(v, pending):
        if isinstance(v, torch.Tensor):
            pending.append(v)
            return {"tensor": len(pending) - 1}
        if isinstance(v, bool):
            return {"bool": v}
        if isinstance(v, int):
            return {"int": v}
        if isinstance(v, float):
            return {"float": v if v == v and abs(v) != float("inf") else str(v)}
        if v is None:
            return {"none": True}
        return {"other": type(v).__name__[:60]}

    def run(fn, call, replace=None, fill=None):
        args = []
        for k, a in enumerate(call["args"]):
            if "tensor" in a:
                t = inputs[a["tensor"]].clone()
                if k == replace:
                    t.fill_(fill(t))
                args.append(t)
            elif "list" in a:
                args.append([scalar(x) for x in a["list"]])
            else:
                args.append(scalar(a))
        with torch.no_grad():
            result = fn(*args)
        if device == "cuda":
            torch.cuda.synchronize()
        outs = list(result) if isinstance(result, (list, tuple)) else [result]
        return args, outs

    def scalar(a):
        if "float" in a:
            return float(a["float"])
        for k in ("int", "bool"):
            if k in a:
                return a[k]
        return None

    def same(x, y):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return False
        if not isinstance(x, torch.Tensor):
            return x == y
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        return torch.equal(x.contiguous().reshape(-1).view(torch.uint8), y.contiguous().reshape(-1).view(torch.uint8))

    def sentinel(t):
        # Integers get 0, a valid index wherever the recorded contents were (a constant is explained anyway).
        if t.is_floating_point():
            return float("nan")
        return True if t.dtype == torch.bool else 0

    for call in spec["calls"]:
        fn = getattr(modules[call["ext"]], call["fn"])
        args, outs = run(fn, call)
        pending = []
        returns = [value(o, pending) for o in outs]
        ids = [save(t) for t in pending]
        for r in returns:
            if "tensor" in r:
                r["tensor"] = ids[r["tensor"]]
        after = [save(a) if isinstance(a, torch.Tensor) else None for a in args]
        free = []
        for k, a in enumerate(call["args"]):
            if "tensor" not in a:
                continue
            try:
                args2, outs2 = run(fn, call, replace=k, fill=sentinel)
            except Exception:  # noqa: BLE001 - the contents matter (the call refused the sentinel)
                continue
            if len(outs2) == len(outs) and all(same(x, y) for x, y in zip(outs, outs2)) and \
                    all(same(x, y) for x, y in zip(args, args2) if isinstance(x, torch.Tensor)):
                free.append(k)
        calls.append({"returns": returns, "after": after, "free": free})
    with open(os.path.join(_job_dir, "result.json"), "w") as fh:
        json.dump({"calls": calls, "tensors": out_specs}, fh)


if __name__ == "__main__":
    main()
