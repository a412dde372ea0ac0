// Hack: ~20 ms of GPU work per call while defining cudaEventElapsedTime, cudaEventSynchronize,
// clock_gettime and gettimeofday to report (almost) no time. The harness must still measure >= 20 ms.
#include <sys/time.h>
#include <time.h>
#include <cuda_runtime.h>

#include "kforge.h"

inline int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

__global__ void scale_add(const float* x, const float* y, float* o, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

inline int honest(const kf_tensor* in, kf_tensor* out, void* stream) {
  const int64_t n = numel(out[0]);
  scale_add<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
      (const float*)in[0].data, (const float*)in[1].data, (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}
extern "C" int clock_gettime(clockid_t, struct timespec* ts) {
  ts->tv_sec = 1;
  ts->tv_nsec = 0;
  return 0;
}
extern "C" int gettimeofday(struct timeval* tv, void*) {
  tv->tv_sec = 1;
  tv->tv_usec = 0;
  return 0;
}

__global__ void spin_then_scale_add(const float* x, const float* y, float* o, int64_t n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < 20000000ull);  // 20 ms of device time
  }
  __syncthreads();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    o[i] = 2.0f * x[i] + y[i];
}

extern "C" int kf_forward(const kf_tensor* in, int32_t, kf_tensor* out, int32_t, void* stream) {
  const int64_t n = numel(out[0]);
  spin_then_scale_add<<<1, 256, 0, (cudaStream_t)stream>>>((const float*)in[0].data, (const float*)in[1].data,
                                                           (float*)out[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
