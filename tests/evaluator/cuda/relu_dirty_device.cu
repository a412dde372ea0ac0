// Honest ReLU (KernelBench level 1 problem 19) that leaves the device dirty for whoever runs next: on its first
// call it takes 4 GiB of device memory it never frees, sets aside the largest persisting-L2 region the device
// allows and marks its input as persisting on the stream. A baseline timed after it on an uncleaned device would
// lose L2 (and memory); kforge's device check (docs/evaluator.md, "A clean device") must see the runner gone and
// the persisting-L2 configuration reset before the baseline, so the verdict stays correct and the baseline true.
#include "kforge.h"

__global__ void relu_dirty(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = fmaxf(x[i], 0.f);
}

static void leave_the_device_dirty(const kf_tensor& input, cudaStream_t s) {
  void* leaked = nullptr;
  (void)cudaMalloc(&leaked, size_t(4) << 30);
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return;
  if (prop.persistingL2CacheMaxSize <= 0) return;
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)prop.persistingL2CacheMaxSize);
  cudaStreamAttrValue attr{};
  attr.accessPolicyWindow.base_ptr = input.data;
  attr.accessPolicyWindow.num_bytes = (size_t)prop.accessPolicyMaxWindowSize;
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  (void)cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr);
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  static bool dirtied = false;
  cudaStream_t s = (cudaStream_t)stream;
  if (!dirtied) {
    leave_the_device_dirty(in[0], s);
    dirtied = true;
  }
  int64_t n = 1;
  for (int d = 0; d < in[0].ndim; ++d) n *= in[0].shape[d];
  relu_dirty<<<132 * 16, 512, 0, s>>>((const float*)in[0].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
