// Honest mean cross-entropy (problem 95): inputs predictions [B, C] float32, targets [B] int64;
// output a 0-d float32. Per-row losses into a scratch array, then one block reduces in double.
#include <cfloat>

#include "kforge.h"

constexpr int kMaxRows = 1 << 17;
__device__ float g_loss[kMaxRows];

__global__ void row_loss(const float* __restrict__ x, const long long* __restrict__ t, int64_t cols) {
  const float* xr = x + blockIdx.x * cols;
  __shared__ float sh[32];
  float m = -FLT_MAX;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, xr[i]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x] : -FLT_MAX;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    if (threadIdx.x == 0) sh[0] = v;
  }
  __syncthreads();
  m = sh[0];
  __syncthreads();
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) s += expf(xr[i] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float tot = 0.f;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) tot += sh[w];
    g_loss[blockIdx.x] = logf(tot) + m - xr[t[blockIdx.x]];
  }
}

__global__ void mean_loss(float* out, int rows) {
  __shared__ double sh[1024];
  double s = 0;
  for (int i = threadIdx.x; i < rows; i += blockDim.x) s += g_loss[i];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = (float)(sh[0] / rows);
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t, void* stream) {
  if (n_in != 2 || in[1].dtype != KF_INT64) return 2;
  int64_t rows = in[0].shape[0], cols = in[0].shape[1];
  if (rows > kMaxRows) return 3;
  cudaStream_t s = (cudaStream_t)stream;
  row_loss<<<(unsigned)rows, 256, 0, s>>>((const float*)in[0].data, (const long long*)in[1].data, cols);
  mean_loss<<<1, 1024, 0, s>>>((float*)out[0].data, (int)rows);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
