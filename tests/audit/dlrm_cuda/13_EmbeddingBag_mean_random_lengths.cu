// Honest candidate for DLRM-Bench 13 (EmbeddingBag mean, bag lengths drawn per sample, include_last_offset).
// inputs: indices int64[N], offsets int64[B+1], weight fp32[R, D]; output fp32[B, D]. N changes from call
// to call (it is the sum of the drawn lengths), so nothing here depends on it: each bag reads its own range
// from offsets, and the grid follows this call's output shape.
// One warp per bag; each lane owns 4 consecutive columns (float4) when D allows it; sums in fp32, one
// division per bag (as torch's mean mode does), zeros for an empty bag.
#include <cuda_runtime.h>

#include "kforge.h"

namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void bag_mean_vec4(const int64_t* __restrict__ indices, const int64_t* __restrict__ offsets,
                              const float4* __restrict__ weight, float4* __restrict__ out, int64_t bags,
                              int64_t vecs_per_row) {
  const int64_t bag = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (bag >= bags) return;
  const int lane = threadIdx.x % 32;
  const int64_t begin = offsets[bag];
  const int64_t end = offsets[bag + 1];
  const float scale = end > begin ? 1.f / static_cast<float>(end - begin) : 0.f;
  for (int64_t v = lane; v < vecs_per_row; v += 32) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t j = begin; j < end; ++j) {
      const float4 w = __ldg(&weight[__ldg(&indices[j]) * vecs_per_row + v]);
      acc.x += w.x;
      acc.y += w.y;
      acc.z += w.z;
      acc.w += w.w;
    }
    out[bag * vecs_per_row + v] = make_float4(acc.x * scale, acc.y * scale, acc.z * scale, acc.w * scale);
  }
}

__global__ void bag_mean_scalar(const int64_t* __restrict__ indices, const int64_t* __restrict__ offsets,
                                const float* __restrict__ weight, float* __restrict__ out, int64_t bags,
                                int64_t dim) {
  const int64_t bag = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (bag >= bags) return;
  const int lane = threadIdx.x % 32;
  const int64_t begin = offsets[bag];
  const int64_t end = offsets[bag + 1];
  const float scale = end > begin ? 1.f / static_cast<float>(end - begin) : 0.f;
  for (int64_t c = lane; c < dim; c += 32) {
    float acc = 0.f;
    for (int64_t j = begin; j < end; ++j) acc += __ldg(&weight[__ldg(&indices[j]) * dim + c]);
    out[bag * dim + c] = acc * scale;
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
      out.dtype != KF_FLOAT32 || indices.ndim != 1 || offsets.ndim != 1 || weight.ndim != 2 || out.ndim != 2)
    return 2;
  const int64_t bags = out.shape[0];
  const int64_t dim = out.shape[1];
  if (offsets.shape[0] != bags + 1 || weight.shape[1] != dim) return 2;
  if (bags == 0 || dim == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((bags + kWarpsPerBlock - 1) / kWarpsPerBlock);
  auto s = static_cast<cudaStream_t>(stream);
  if (dim % 4 == 0) {
    bag_mean_vec4<<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const int64_t*>(indices.data), static_cast<const int64_t*>(offsets.data),
        static_cast<const float4*>(weight.data), static_cast<float4*>(out.data), bags, dim / 4);
  } else {
    bag_mean_scalar<<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const int64_t*>(indices.data), static_cast<const int64_t*>(offsets.data),
        static_cast<const float*>(weight.data), static_cast<float*>(out.data), bags, dim);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
