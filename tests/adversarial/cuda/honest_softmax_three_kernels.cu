// Honest: three kernels (row max, row sum of exponentials, normalise) through a per-call workspace.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void row_max(const float* x, float* mx, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[(size_t)r * cols + c]);
  mx[r] = m;
}
__global__ void row_sum(const float* x, const float* mx, float* sum, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0;
  for (int c = 0; c < cols; ++c) s += expf(x[(size_t)r * cols + c] - mx[r]);
  sum[r] = s;
}
__global__ void normalise(const float* x, const float* mx, const float* sum, float* o, int rows, int cols) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= (int64_t)rows * cols) return;
  const int r = (int)(i / cols);
  o[i] = expf(x[i] - mx[r]) / sum[r];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  const int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
  cudaStream_t s = (cudaStream_t)stream;
  float* ws = nullptr;
  if (cudaMallocAsync((void**)&ws, 2 * rows * sizeof(float), s) != cudaSuccess) return 2;
  const float* x = (const float*)in[0].data;
  row_max<<<(rows + 63) / 64, 64, 0, s>>>(x, ws, rows, cols);
  row_sum<<<(rows + 63) / 64, 64, 0, s>>>(x, ws, ws + rows, rows, cols);
  const int64_t n = (int64_t)rows * cols;
  normalise<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(x, ws, ws + rows, (float*)out[0].data, rows, cols);
  cudaFreeAsync(ws, s);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
