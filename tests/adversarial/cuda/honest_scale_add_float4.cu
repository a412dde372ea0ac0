// Honest: vectorised float4 loads and stores with a scalar tail.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void scale_add4(const float4* x, const float4* y, float4* o, int64_t n4) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 a = x[i], b = y[i];
    o[i] = make_float4(2.0f * a.x + b.x, 2.0f * a.y + b.y, 2.0f * a.z + b.z, 2.0f * a.w + b.w);
  }
}

__global__ void scale_add_tail(const float* x, const float* y, float* o, int64_t start, int64_t n) {
  int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) o[i] = 2.0f * x[i] + y[i];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void* stream) {
  if (n_in != 2 || n_out != 1) return 1;
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  cudaStream_t s = (cudaStream_t)stream;
  const int64_t n4 = n / 4;
  if (n4 > 0)
    scale_add4<<<(unsigned)((n4 + 255) / 256), 256, 0, s>>>((const float4*)in[0].data, (const float4*)in[1].data,
                                                            (float4*)out[0].data, n4);
  if (n4 * 4 < n)
    scale_add_tail<<<1, 32, 0, s>>>((const float*)in[0].data, (const float*)in[1].data, (float*)out[0].data, n4 * 4, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
