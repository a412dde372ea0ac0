// Honest row softmax (level 1 problem 23): one block per row, max / sum / write passes.
#include <cfloat>

#include "kforge.h"

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float sh[32];
  for (int o = 16; o > 0; o >>= 1) {
    float w = __shfl_xor_sync(0xffffffff, v, o);
    v = is_max ? fmaxf(v, w) : v + w;
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  int nw = blockDim.x >> 5;
  v = threadIdx.x < nw ? sh[threadIdx.x] : (is_max ? -FLT_MAX : 0.f);
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) {
      float w = __shfl_xor_sync(0xffffffff, v, o);
      v = is_max ? fmaxf(v, w) : v + w;
    }
  if (threadIdx.x == 0) sh[0] = v;
  __syncthreads();
  return sh[0];
}

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* xr = x + blockIdx.x * cols;
  float* yr = y + blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, xr[i]);
  m = block_reduce(m, true);
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) s += expf(xr[i] - m);
  s = block_reduce(s, false);
  float inv = 1.f / s;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) yr[i] = expf(xr[i] - m) * inv;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  int64_t rows = in[0].shape[0], cols = in[0].shape[1];
  softmax_rows<<<(unsigned)rows, 1024, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (float*)out[0].data, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
