// Crash: a kernel writing far outside any allocation (cudaErrorIllegalAddress, a sticky error).
#include <cuda_runtime.h>

#include "kforge.h"

__global__ void wild(float* o) { o[(size_t)1 << 40] = 1.0f; }

extern "C" int kf_forward(const kf_tensor*, int32_t, kf_tensor* out, int32_t, void* stream) {
  wild<<<1, 1, 0, (cudaStream_t)stream>>>((float*)out[0].data);
  return cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess ? 0 : 1;
}
