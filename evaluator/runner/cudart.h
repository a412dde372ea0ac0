#pragma once
// libcudart loaded at run time (dlopen), so that kforge-runner builds and runs without the CUDA toolkit
// or a GPU; the host backend never touches it. Only the handful of entry points the runner needs.
#include <cstddef>
#include <string>

namespace kf::runner {

struct IpcHandle {
  char reserved[64];
};

struct Cudart {
  using Err = int;
  Err (*SetDevice)(int) = nullptr;
  Err (*SetDeviceFlags)(unsigned) = nullptr;
  Err (*IpcOpenMemHandle)(void**, IpcHandle, unsigned) = nullptr;
  Err (*IpcCloseMemHandle)(void*) = nullptr;
  Err (*StreamCreateWithFlags)(void**, unsigned) = nullptr;
  Err (*StreamSynchronize)(void*) = nullptr;
  Err (*DeviceSynchronize)() = nullptr;
  Err (*GetLastError)() = nullptr;
  const char* (*GetErrorName)(Err) = nullptr;
  const char* (*GetErrorString)(Err) = nullptr;
  Err (*EventCreate)(void**) = nullptr;
  Err (*EventRecord)(void*, void*) = nullptr;
  Err (*EventSynchronize)(void*) = nullptr;
  Err (*EventElapsedTime)(float*, void*, void*) = nullptr;
  Err (*Malloc)(void**, size_t) = nullptr;
  Err (*Free)(void*) = nullptr;
  Err (*MemsetAsync)(void*, int, size_t, void*) = nullptr;
  Err (*DeviceGetAttribute)(int*, int, int) = nullptr;

  // Loads libcudart (the soname candidates link against first). Returns an empty string on success,
  // else what went wrong.
  std::string load();
  std::string describe(Err e) const;
};

inline constexpr int kStreamNonBlocking = 1;
inline constexpr unsigned kDeviceScheduleSpin = 1;
inline constexpr unsigned kIpcLazyEnablePeerAccess = 1;
inline constexpr int kDevAttrL2CacheSize = 38;

}  // namespace kf::runner
