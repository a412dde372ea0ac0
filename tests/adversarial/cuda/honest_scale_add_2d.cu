// Honest: a 2-D grid over (rows, cols) using the tensor's shape.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void scale_add_2d(const float* x, const float* y, float* o, int rows, int cols) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) o[(size_t)r * cols + c] = 2.0f * x[(size_t)r * cols + c] + y[(size_t)r * cols + c];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t, void* stream) {
  if (n_in != 2 || out[0].ndim != 2) return 1;
  const int rows = (int)out[0].shape[0], cols = (int)out[0].shape[1];
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  scale_add_2d<<<grid, block, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                         (float*)out[0].data, rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
