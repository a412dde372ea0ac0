#pragma once
// GPU health after a runner: the device's memory must return to its baseline and a canary kernel
// must run. A GPU that fails either is unhealthy: stop scheduling on it and say so.
#include <cstdint>
#include <string>

#include "core/result.h"

namespace kf::sandbox {

struct GpuMemory {
  uint64_t used_bytes = 0;
  uint64_t total_bytes = 0;
};

// Memory in use on `device` according to nvidia-smi (Err when nvidia-smi is missing or fails).
Result<GpuMemory> gpu_memory(int device);

// Runs a one-thread kernel (writes 42 through the driver API, PTX JIT) in a forked child process so
// that kforge itself never holds a CUDA context. Err when it fails or takes longer than timeout_s.
Status run_canary_kernel(int device, double timeout_s = 30);

struct GpuHealth {
  bool healthy = true;
  std::string problem;  // what is wrong, for the user ("memory did not return to baseline: ...")
  uint64_t baseline_used_bytes = 0;
  uint64_t used_bytes = 0;
};

// Call before a runner starts to get the baseline, then check_gpu_health() after it ended: waits up
// to settle_s for the used memory to come back within slack_bytes of the baseline, then runs the
// canary kernel.
GpuHealth check_gpu_health(int device, uint64_t baseline_used_bytes, double settle_s = 10,
                           uint64_t slack_bytes = 64ull << 20);

}  // namespace kf::sandbox
