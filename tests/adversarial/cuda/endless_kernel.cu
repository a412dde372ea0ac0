// Attack: a kernel that never finishes.
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void forever(volatile int* flag) {
  while (*flag == 0) {
  }
}

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor* out, int32_t, void* stream) {
  int* flag = nullptr;
  if (cudaMallocAsync((void**)&flag, sizeof(int), (cudaStream_t)stream) != cudaSuccess) return 2;
  cudaMemsetAsync(flag, 0, sizeof(int), (cudaStream_t)stream);
  forever<<<1, 1, 0, (cudaStream_t)stream>>>(flag);
  (void)out;
  return cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess ? 0 : 1;
}
