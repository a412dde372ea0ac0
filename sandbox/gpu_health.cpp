#include "sandbox/gpu_health.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace kf::sandbox {
namespace {

// Minimal driver-API types: kforge does not build against CUDA.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUdeviceptr = unsigned long long;

constexpr const char* kCanaryPtx = R"(
.version 6.0
.target sm_50
.address_size 64
.visible .entry kf_canary(.param .u64 out)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 42;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

// Runs in the forked child; returns the exit code (0: the canary wrote 42).
int canary_child(int device) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 10;
  auto sym = [&](const char* name) { return dlsym(lib, name); };
  auto cuInit = reinterpret_cast<CUresult (*)(unsigned)>(sym("cuInit"));
  auto cuDeviceGet = reinterpret_cast<CUresult (*)(CUdevice*, int)>(sym("cuDeviceGet"));
  auto cuDevicePrimaryCtxRetain = reinterpret_cast<CUresult (*)(CUcontext*, CUdevice)>(sym("cuDevicePrimaryCtxRetain"));
  auto cuCtxSetCurrent = reinterpret_cast<CUresult (*)(CUcontext)>(sym("cuCtxSetCurrent"));
  auto cuModuleLoadData = reinterpret_cast<CUresult (*)(CUmodule*, const void*)>(sym("cuModuleLoadData"));
  auto cuModuleGetFunction = reinterpret_cast<CUresult (*)(CUfunction*, CUmodule, const char*)>(sym("cuModuleGetFunction"));
  auto cuMemAlloc = reinterpret_cast<CUresult (*)(CUdeviceptr*, size_t)>(sym("cuMemAlloc_v2"));
  auto cuMemsetD32 = reinterpret_cast<CUresult (*)(CUdeviceptr, unsigned, size_t)>(sym("cuMemsetD32_v2"));
  auto cuLaunchKernel = reinterpret_cast<CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                      unsigned, unsigned, void*, void**, void**)>(sym("cuLaunchKernel"));
  auto cuCtxSynchronize = reinterpret_cast<CUresult (*)()>(sym("cuCtxSynchronize"));
  auto cuMemcpyDtoH = reinterpret_cast<CUresult (*)(void*, CUdeviceptr, size_t)>(sym("cuMemcpyDtoH_v2"));
  if (!cuInit || !cuDeviceGet || !cuDevicePrimaryCtxRetain || !cuCtxSetCurrent || !cuModuleLoadData ||
      !cuModuleGetFunction || !cuMemAlloc || !cuMemsetD32 || !cuLaunchKernel || !cuCtxSynchronize || !cuMemcpyDtoH)
    return 11;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr buf = 0;
  if (cuInit(0) != 0) return 12;
  if (cuDeviceGet(&dev, device) != 0) return 13;
  if (cuDevicePrimaryCtxRetain(&ctx, dev) != 0 || cuCtxSetCurrent(ctx) != 0) return 14;
  if (cuModuleLoadData(&mod, kCanaryPtx) != 0 || cuModuleGetFunction(&fn, mod, "kf_canary") != 0) return 15;
  if (cuMemAlloc(&buf, 4) != 0 || cuMemsetD32(buf, 0, 1) != 0) return 16;
  void* args[] = {&buf};
  if (cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) != 0) return 17;
  if (cuCtxSynchronize() != 0) return 18;
  unsigned value = 0;
  if (cuMemcpyDtoH(&value, buf, 4) != 0) return 19;
  return value == 42 ? 0 : 20;
}

const char* canary_failure(int code) {
  switch (code) {
    case 10: return "libcuda.so.1 cannot be loaded (no NVIDIA driver?)";
    case 11: return "libcuda.so.1 lacks driver API entry points";
    case 12: return "cuInit failed";
    case 13: return "the device does not exist";
    case 14: return "cannot create a context on the device";
    case 15: return "cannot load the canary module (PTX JIT failed)";
    case 16: return "cannot allocate 4 bytes of device memory";
    case 17: return "cannot launch the canary kernel";
    case 18: return "the canary kernel failed";
    case 19: return "cannot copy the canary's result back";
    case 20: return "the canary kernel computed a wrong value";
  }
  return "unknown failure";
}

}  // namespace

Result<GpuMemory> gpu_memory(int device) {
  const std::string cmd = "nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits -i " +
                          std::to_string(device) + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return make_error("gpu.nvidia_smi", "cannot run nvidia-smi; is the NVIDIA driver installed?");
  char line[256] = {0};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  const int status = ::pclose(p);
  unsigned long long used = 0, total = 0;
  if (!got || status != 0 || std::sscanf(line, "%llu, %llu", &used, &total) != 2)
    return make_error("gpu.nvidia_smi", "nvidia-smi could not report the memory of GPU " + std::to_string(device) +
                                            "; check `nvidia-smi -i " + std::to_string(device) + "`");
  return GpuMemory{used << 20, total << 20};
}

Status run_canary_kernel(int device, double timeout_s) {
  const pid_t pid = ::fork();
  if (pid < 0) return make_error("gpu.canary", "cannot fork the canary process");
  if (pid == 0) ::_exit(canary_child(device));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return make_error("gpu.canary", "the canary kernel on GPU " + std::to_string(device) + " did not finish within " +
                                          std::to_string(timeout_s) + " s: the GPU is hung");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok_status();
  const std::string why = WIFEXITED(status) ? canary_failure(WEXITSTATUS(status)) : "the canary process crashed";
  return make_error("gpu.canary", "GPU " + std::to_string(device) + " failed the canary kernel: " + why);
}

GpuHealth check_gpu_health(int device, uint64_t baseline_used_bytes, double settle_s, uint64_t slack_bytes) {
  GpuHealth h;
  h.baseline_used_bytes = baseline_used_bytes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(settle_s);
  for (;;) {
    auto mem = gpu_memory(device);
    if (!mem.ok()) {
      h.healthy = false;
      h.problem = mem.error().message;
      return h;
    }
    h.used_bytes = mem->used_bytes;
    if (h.used_bytes <= baseline_used_bytes + slack_bytes) break;
    if (std::chrono::steady_clock::now() > deadline) {
      h.healthy = false;
      h.problem = "GPU " + std::to_string(device) + " memory did not return to its baseline after the runner: " +
                  std::to_string(h.used_bytes >> 20) + " MiB in use, baseline " +
                  std::to_string(baseline_used_bytes >> 20) + " MiB; a process may still hold it (see nvidia-smi)";
      return h;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (auto st = run_canary_kernel(device); !st.ok()) {
    h.healthy = false;
    h.problem = st.error().message;
  }
  return h;
}

}  // namespace kf::sandbox
