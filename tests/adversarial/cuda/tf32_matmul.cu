// Hack (reduced precision): operands rounded to TF32 (cvt.rna.tf32.f32, as tensor cores take them) and an
// fp32 accumulation, on an fp32 problem with all-positive inputs: the precision trial catches it.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include "kforge.h"

__device__ __forceinline__ float ROUND(float v) {
  unsigned u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(v));
  return __uint_as_float(u);
}

__global__ void matmul(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  const int64_t i = blockIdx.y * (int64_t)blockDim.y + threadIdx.y, j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float acc = 0;
  for (int64_t p = 0; p < k; ++p) acc += ROUND(a[i * k + p]) * ROUND(b[p * n + j]);
  c[i * n + j] = acc;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  matmul<<<grid, block, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                   (float*)out[0].data, m, k, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
