"""The GPU as the trusted oracle reaches it beside torch: dedicated allocations and their CUDA IPC export through
libcudart (never torch's caching allocator), NVML's per-process accounting, and the ops that check the device
between evaluations (device_check) and measure its copy bandwidth (bandwidth).
"""
import ctypes
import os
import time

import torch



class CudaRuntime:
    """Dedicated allocations through libcudart (never torch's caching allocator) and IPC export."""

    def __init__(self):
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        self.lib = None
        names = ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]
        for cand in list(names):
            # torch wheels ship their own runtime; prefer the copy torch already loaded.
            for d in self._torch_lib_dirs():
                names.append(os.path.join(d, cand))
        err = None
        for n in names:
            try:
                self.lib = ctypes.CDLL(n)
                break
            except OSError as e:
                err = e
        if self.lib is None:
            raise RuntimeError(f"cannot load libcudart for CUDA IPC: {err}")
        self.lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.lib.cudaFree.argtypes = [ctypes.c_void_p]
        self.lib.cudaIpcGetMemHandle.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        self.lib.cudaSetDevice.argtypes = [ctypes.c_int]
        self.lib.cudaSetDevice(torch.cuda.current_device())

    @staticmethod
    def _torch_lib_dirs():
        dirs = []
        try:
            import nvidia  # noqa: F401
            base = os.path.dirname(nvidia.__path__[0] if hasattr(nvidia, "__path__") else nvidia.__file__)
            for sub in ("nvidia/cu13/lib", "nvidia/cuda_runtime/lib"):
                dirs.append(os.path.join(base, sub))
        except Exception:
            pass
        dirs.append(os.path.join(os.path.dirname(torch.__file__), "lib"))
        return dirs

    def malloc(self, nbytes):
        ptr = ctypes.c_void_p()
        rc = self.lib.cudaMalloc(ctypes.byref(ptr), max(int(nbytes), 1))
        if rc != 0:
            raise RuntimeError(f"cudaMalloc({nbytes}) failed with error {rc}")
        return ptr.value

    def free(self, ptr):
        self.lib.cudaFree(ctypes.c_void_p(ptr))

    CUDA_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06

    def reset_persisting_l2(self):
        """Sets the device's persisting-L2 set-aside back to 0 and returns every persisting line to normal:
        whatever a finished runner configured (cudaLimitPersistingL2CacheSize, access-policy windows) must not
        shape the next timing. Returns the set-aside found before (bytes), or None where the runtime refused."""
        before = ctypes.c_size_t(0)
        rc = self.lib.cudaDeviceGetLimit(ctypes.byref(before), self.CUDA_LIMIT_PERSISTING_L2_CACHE_SIZE)
        ok = rc == 0
        ok = self.lib.cudaDeviceSetLimit(self.CUDA_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(0)) == 0 and ok
        ok = self.lib.cudaCtxResetPersistingL2Cache() == 0 and ok
        return int(before.value) if ok else None

    def ipc_handle(self, ptr):
        buf = ctypes.create_string_buffer(64)
        rc = self.lib.cudaIpcGetMemHandle(buf, ctypes.c_void_p(ptr))
        if rc != 0:
            raise RuntimeError(f"cudaIpcGetMemHandle failed with error {rc}")
        return buf.raw.hex()


class CudaBytes:
    """A dedicated allocation as bytes torch can wrap (torch.as_tensor) without owning them."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (int(nbytes),), "typestr": "|u1", "data": (ptr, False),
                                         "version": 2, "strides": None}


class Nvml:
    """NVML's per-process accounting through ctypes (libnvidia-ml ships with the driver): which processes hold a
    context on a GPU, and how much of its memory each one holds."""

    class ProcessInfo(ctypes.Structure):
        _fields_ = [("pid", ctypes.c_uint), ("used_gpu_memory", ctypes.c_ulonglong),
                    ("gpu_instance_id", ctypes.c_uint), ("compute_instance_id", ctypes.c_uint)]

    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        rc = self.lib.nvmlInit_v2()
        if rc != 0:
            raise RuntimeError(f"nvmlInit failed with error {rc}")

    def processes(self, uuid):
        """[(pid, bytes)] of the compute processes on the GPU with this UUID ("GPU-...")."""
        handle = ctypes.c_void_p()
        rc = self.lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(handle))
        if rc != 0:
            raise RuntimeError(f"nvmlDeviceGetHandleByUUID({uuid}) failed with error {rc}")
        fn = getattr(self.lib, "nvmlDeviceGetComputeRunningProcesses_v3", None) or \
            self.lib.nvmlDeviceGetComputeRunningProcesses_v2
        for _ in range(4):
            count = ctypes.c_uint(0)
            rc = fn(handle, ctypes.byref(count), None)
            if rc == 0:
                return []
            infos = (self.ProcessInfo * (count.value + 8))()
            count = ctypes.c_uint(len(infos))
            rc = fn(handle, ctypes.byref(count), infos)
            if rc == 0:
                return [(int(infos[i].pid), int(infos[i].used_gpu_memory)) for i in range(count.value)]
            if rc != 7:  # NVML_ERROR_INSUFFICIENT_SIZE: a process came meanwhile
                raise RuntimeError(f"nvmlDeviceGetComputeRunningProcesses failed with error {rc}")
        raise RuntimeError("nvmlDeviceGetComputeRunningProcesses kept changing size")


class DeviceOps:
    """The GPU between evaluations (mixed into Oracle, oracle.py, which holds the state)."""

    def op_device_check(self, req):
        """Before a baseline or the next candidate: the finished runner's processes (`pids`, as the supervisor saw
        them) hold no context and no memory on this GPU any more (NVML's per-process accounting, polled for up to
        `wait_s`), and the persisting-L2 configuration is reset. `clean` is null where NVML cannot tell (no GPU
        backend here: the host's process check is the supervisor's)."""
        p = self.need_problem()
        if p.device != "cuda":
            return {"clean": None, "checked": "host"}
        watched = set(int(x) for x in req.get("pids", []))
        if self.cuda is None:
            self.cuda = CudaRuntime()
        l2_before = self.cuda.reset_persisting_l2()
        res = {"persisting_l2_before": l2_before, "persisting_l2_reset": l2_before is not None}
        try:
            if self.nvml is None:
                self.nvml = Nvml()
            uuid = "GPU-" + str(torch.cuda.get_device_properties(torch.cuda.current_device()).uuid)
            deadline = time.monotonic() + float(req.get("wait_s", 5.0))
            while True:
                procs = self.nvml.processes(uuid)
                left = [{"pid": pid, "bytes": b} for pid, b in procs if pid in watched]
                if not left or time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
        except (OSError, RuntimeError, AttributeError) as e:
            res.update({"clean": None, "checked": "none", "error": str(e)[:500]})
            return res
        others = [{"pid": pid, "bytes": b} for pid, b in procs if pid not in watched and pid != os.getpid()]
        res.update({"clean": not left, "checked": "nvml", "runner_processes_left": left, "other_processes": others})
        return res

    def op_bandwidth(self, req):
        """Device copy bandwidth (bytes read + written per second), measured once per session."""
        if self.bandwidth is None:
            if not torch.cuda.is_available():
                return {"gbps": None}
            n = 1 << 30
            a = torch.empty(n, dtype=torch.uint8, device="cuda")
            b = torch.empty(n, dtype=torch.uint8, device="cuda")
            a.fill_(1)
            for _ in range(2):
                b.copy_(a)
            torch.cuda.synchronize()
            best = float("inf")
            for _ in range(5):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                b.copy_(a)
                e.record()
                e.synchronize()
                best = min(best, s.elapsed_time(e))
            self.bandwidth = 2 * n / (best * 1e-3) / 1e9
            del a, b
        return {"gbps": self.bandwidth}
