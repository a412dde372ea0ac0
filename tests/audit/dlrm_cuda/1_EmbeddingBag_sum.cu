// Honest candidate for DLRM-Bench 1 (EmbeddingBag sum, include_last_offset offsets).
// inputs: indices int64[N], offsets int64[B+1], weight fp32[R, D]; output fp32[B, D].
// One warp per bag; lanes stride over the embedding dimension, float4 when D allows it.
#include <cuda_runtime.h>

#include "kforge.h"

namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void bag_sum_vec4(const int64_t* __restrict__ indices, const int64_t* __restrict__ offsets,
                             const float4* __restrict__ weight, float4* __restrict__ out, int64_t bags,
                             int64_t vecs_per_row) {
  const int64_t bag = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (bag >= bags) return;
  const int lane = threadIdx.x % 32;
  const int64_t begin = offsets[bag];
  const int64_t end = offsets[bag + 1];
  for (int64_t v = lane; v < vecs_per_row; v += 32) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t j = begin; j < end; ++j) {
      const float4 w = __ldg(&weight[indices[j] * vecs_per_row + v]);
      acc.x += w.x;
      acc.y += w.y;
      acc.z += w.z;
      acc.w += w.w;
    }
    out[bag * vecs_per_row + v] = acc;
  }
}

__global__ void bag_sum_scalar(const int64_t* __restrict__ indices, const int64_t* __restrict__ offsets,
                               const float* __restrict__ weight, float* __restrict__ out, int64_t bags,
                               int64_t dim) {
  const int64_t bag = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (bag >= bags) return;
  const int lane = threadIdx.x % 32;
  const int64_t begin = offsets[bag];
  const int64_t end = offsets[bag + 1];
  for (int64_t c = lane; c < dim; c += 32) {
    float acc = 0.f;
    for (int64_t j = begin; j < end; ++j) acc += __ldg(&weight[indices[j] * dim + c]);
    out[bag * dim + c] = acc;
  }
}

}  // namespace

extern "C" int kf_forward(const kf_tensor* inputs, int32_t num_inputs, kf_tensor* outputs, int32_t num_outputs,
                          void* stream) {
  if (num_inputs != 3 || num_outputs != 1) return 1;
  const kf_tensor& indices = inputs[0];
  const kf_tensor& offsets = inputs[1];
  const kf_tensor& weight = inputs[2];
  kf_tensor& out = outputs[0];
  if (indices.dtype != KF_INT64 || offsets.dtype != KF_INT64 || weight.dtype != KF_FLOAT32 ||
      out.dtype != KF_FLOAT32 || weight.ndim != 2 || out.ndim != 2)
    return 2;
  const int64_t bags = out.shape[0];
  const int64_t dim = out.shape[1];
  if (bags == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((bags + kWarpsPerBlock - 1) / kWarpsPerBlock);
  auto s = static_cast<cudaStream_t>(stream);
  if (dim % 4 == 0) {
    bag_sum_vec4<<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const int64_t*>(indices.data), static_cast<const int64_t*>(offsets.data),
        static_cast<const float4*>(weight.data), static_cast<float4*>(out.data), bags, dim / 4);
  } else {
    bag_sum_scalar<<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const int64_t*>(indices.data), static_cast<const int64_t*>(offsets.data),
        static_cast<const float*>(weight.data), static_cast<float*>(out.data), bags, dim);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
