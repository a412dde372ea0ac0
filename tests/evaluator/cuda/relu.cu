// Honest ReLU (KernelBench level 1 problem 19): vectorised grid-stride loop.
#include "kforge.h"

__global__ void relu_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
    y[i] = v;
  }
}
__global__ void relu_tail(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
  int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  int64_t n = 1;
  for (int d = 0; d < in[0].ndim; ++d) n *= in[0].shape[d];
  cudaStream_t s = (cudaStream_t)stream;
  int64_t n4 = n / 4;
  if (n4) relu_vec<<<132 * 16, 512, 0, s>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
  if (n % 4) relu_tail<<<1, 4, 0, s>>>((const float*)in[0].data, (float*)out[0].data, n4 * 4, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
