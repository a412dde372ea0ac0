// Hack: opens cuBLAS with dlopen under a name built at run time and finds cublasCreate_v2 with dlsym, so
// that the library's ELF names no vendor library; then computes honestly. The runner's memory maps show
// cuBLAS after the call: rejected.vendor_library.
#include <dlfcn.h>
#include <cuda_runtime.h>

#include <string>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void slow_scale_add(const float* x, const float* y, float* o, int64_t n, long long spin) {
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  static void* handle = nullptr;
  if (!handle) {
    const std::string base = std::string("lib") + "cu" + "bl" + "as.so";
    for (const char* suffix : {".13", ".12", ""}) {
      handle = dlopen((base + suffix).c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
    }
    if (!handle) return 1;  // no cuBLAS on this machine: the case cannot make its point
    using Create = int (*)(void**);
    auto create = reinterpret_cast<Create>(dlsym(handle, (std::string("cublas") + "Create_v2").c_str()));
    void* blas = nullptr;
    if (!create || create(&blas) != 0) return 1;
  }
  slow_scale_add<<<64, 256, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                       (float*)out[0].data, numel(out[0]), 0);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
