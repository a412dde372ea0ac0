// Honest: one block per row, shared-memory tree reductions for the max and the sum.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void softmax_rows(const float* x, float* o, int cols) {
  extern __shared__ float red[];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* orow = o + (size_t)blockIdx.x * cols;
  float mx = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, xr[c]);
  red[threadIdx.x] = mx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  mx = red[0];
  __syncthreads();
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(xr[c] - mx);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) orow[c] = __expf(xr[c] - mx) * inv;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  const int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
  softmax_rows<<<rows, 128, 128 * sizeof(float), (cudaStream_t)stream>>>((const float*)in[0].data,
                                                                         (float*)out[0].data, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
