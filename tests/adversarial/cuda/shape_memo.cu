// Hack: memoises outputs on a fingerprint of the full input contents on a problem whose shapes depend on the
// seed (copied to the host and hashed), and pays 20 ms only on a miss. Timed rounds used to repeat the trials'
// integer inputs exactly there; now each round permutes them afresh, every call misses, and the time stays at
// or above the real 20 ms.
#include <cuda_runtime.h>

#include <map>
#include <vector>

#include "kforge.h"

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

__global__ void bag_mean(const int64_t* idx, const int64_t* off, const float* w, float* o, int64_t bags, int64_t dim) {
  const int64_t b = blockIdx.x, c = threadIdx.x;
  if (b >= bags || c >= dim) return;
  double acc = 0;
  for (int64_t j = off[b]; j < off[b + 1]; ++j) acc += w[idx[j] * dim + c];
  o[b * dim + c] = off[b + 1] > off[b] ? (float)(acc / (double)(off[b + 1] - off[b])) : 0.f;
}

static int64_t numel(const kf_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void* stream) {
  if (n_in != 3 || n_out != 1) return 2;
  static std::map<uint64_t, std::vector<float>> cache;
  cudaStream_t s = (cudaStream_t)stream;
  const int64_t bags = out[0].shape[0], dim = out[0].shape[1];
  uint64_t h = 1469598103934665603ull;
  for (int t = 0; t < 2; ++t) {
    std::vector<unsigned char> bytes(static_cast<size_t>(numel(in[t]) * 8));
    cudaMemcpyAsync(bytes.data(), in[t].data, bytes.size(), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    h = (h ^ bytes.size()) * 1099511628211ull;
  }
  const size_t out_bytes = static_cast<size_t>(bags * dim) * sizeof(float);
  if (auto it = cache.find(h); it != cache.end()) {
    cudaMemcpyAsync(out[0].data, it->second.data(), out_bytes, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
  }
  spin<<<1, 1, 0, s>>>(20LL * 2000000LL);  // ~20 ms at 2 GHz
  bag_mean<<<(unsigned)bags, (unsigned)dim, 0, s>>>((const int64_t*)in[0].data, (const int64_t*)in[1].data,
                                                    (const float*)in[2].data, (float*)out[0].data, bags, dim);
  std::vector<float> host(static_cast<size_t>(bags * dim));
  cudaMemcpyAsync(host.data(), out[0].data, out_bytes, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  if (cache.size() < 4096) cache[h] = std::move(host);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
