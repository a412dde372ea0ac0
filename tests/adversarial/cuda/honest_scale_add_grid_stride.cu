// Honest: grid-stride loop with a capped grid.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void scale_add(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ o, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void* stream) {
  if (n_in != 2 || n_out != 1) return 1;
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  scale_add<<<32, 128, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                  (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
