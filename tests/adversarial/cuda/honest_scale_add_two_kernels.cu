// Honest: two kernels through a workspace (t = 2x, then out = t + y), workspace allocated per call
// with the stream-ordered allocator.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void twice(const float* x, float* t, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * x[i];
}
__global__ void add(const float* t, const float* y, float* o, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) o[i] = t[i] + y[i];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  cudaStream_t s = (cudaStream_t)stream;
  float* t = nullptr;
  if (cudaMallocAsync((void**)&t, n * sizeof(float), s) != cudaSuccess) return 2;
  const unsigned blocks = (unsigned)((n + 255) / 256);
  twice<<<blocks, 256, 0, s>>>((const float*)in[0].data, t, n);
  add<<<blocks, 256, 0, s>>>(t, (const float*)in[1].data, (float*)out[0].data, n);
  cudaFreeAsync(t, s);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
