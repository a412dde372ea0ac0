// Honest: one warp per row, shuffle reductions, online max/sum.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void softmax_warp(const float* x, float* o, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float mx = -INFINITY, sum = 0;
  for (int c = lane; c < cols; c += 32) {
    const float v = xr[c];
    const float nm = fmaxf(mx, v);
    sum = sum * expf(mx - nm) + expf(v - nm);
    mx = nm;
  }
  for (int off = 16; off > 0; off >>= 1) {
    const float om = __shfl_xor_sync(0xffffffffu, mx, off), os = __shfl_xor_sync(0xffffffffu, sum, off);
    const float nm = fmaxf(mx, om);
    sum = (mx == -INFINITY ? 0.0f : sum * expf(mx - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
    mx = nm;
  }
  for (int c = lane; c < cols; c += 32) o[(size_t)row * cols + c] = expf(xr[c] - mx) / sum;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  const int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
  const int warps_per_block = 4;
  softmax_warp<<<(rows + warps_per_block - 1) / warps_per_block, 32 * warps_per_block, 0, (cudaStream_t)stream>>>(
      (const float*)in[0].data, (float*)out[0].data, rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
