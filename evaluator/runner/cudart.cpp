#include "evaluator/runner/cudart.h"

#include <dlfcn.h>

namespace kf::runner {

namespace {
template <class F>
bool bind(void* lib, F*& fn, const char* name) {
  fn = reinterpret_cast<F*>(dlsym(lib, name));
  return fn != nullptr;
}
}  // namespace

std::string Cudart::load() {
  void* lib = nullptr;
  for (const char* name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (lib) break;
  }
  if (!lib) return std::string("cannot load libcudart (") + dlerror() + "); set LD_LIBRARY_PATH to the CUDA runtime";
  bool ok =
      bind(lib, SetDevice, "cudaSetDevice") && bind(lib, SetDeviceFlags, "cudaSetDeviceFlags") &&
      bind(lib, IpcOpenMemHandle, "cudaIpcOpenMemHandle") && bind(lib, IpcCloseMemHandle, "cudaIpcCloseMemHandle") &&
      bind(lib, StreamCreateWithFlags, "cudaStreamCreateWithFlags") &&
      bind(lib, StreamSynchronize, "cudaStreamSynchronize") && bind(lib, DeviceSynchronize, "cudaDeviceSynchronize") &&
      bind(lib, GetLastError, "cudaGetLastError") && bind(lib, GetErrorName, "cudaGetErrorName") &&
      bind(lib, GetErrorString, "cudaGetErrorString") && bind(lib, EventCreate, "cudaEventCreate") &&
      bind(lib, EventRecord, "cudaEventRecord") && bind(lib, EventSynchronize, "cudaEventSynchronize") &&
      bind(lib, EventElapsedTime, "cudaEventElapsedTime") && bind(lib, Malloc, "cudaMalloc") &&
      bind(lib, Free, "cudaFree") && bind(lib, MemsetAsync, "cudaMemsetAsync") &&
      bind(lib, DeviceGetAttribute, "cudaDeviceGetAttribute");
  if (!ok) return "libcudart lacks an entry point the runner needs";
  return {};
}

std::string Cudart::describe(Err e) const {
  std::string name = GetErrorName ? GetErrorName(e) : "cudaError";
  std::string text = GetErrorString ? GetErrorString(e) : "";
  return name + " (" + text + ")";
}

}  // namespace kf::runner
