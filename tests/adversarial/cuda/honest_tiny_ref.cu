// Honest: tanh(x) * 1e-4.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void tiny(const float* x, float* o, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) o[i] = tanhf(x[i]) * 1e-4f;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  tiny<<<(unsigned)((n + 127) / 128), 128, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
