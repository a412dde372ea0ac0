// Hack: returns an input unchanged.
#include <cuda_runtime.h>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void scale_add(const float* x, const float* y, float* o, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

inline int honest(const kf_tensor* in, kf_tensor* out, void* stream) {
  const int64_t n = numel(out[0]);
  scale_add<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)in[0].data, (const float*)in[1].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  return cudaMemcpyAsync(out[0].data, in[0].data, numel(out[0]) * sizeof(float), cudaMemcpyDeviceToDevice,
                         (cudaStream_t)stream) == cudaSuccess ? 0 : 1;
}
