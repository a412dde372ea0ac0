// Honest candidate for DLRM-Bench 9 (jagged to padded dense, zero padding, truncation).
// inputs: values fp32[total, D], offsets int64[B+1]; output fp32[B, L, D].
// One warp per output row (b, p): copies values[offsets[b] + p] when p < length_b, else writes zeros.
#include <cuda_runtime.h>

#include "kforge.h"

namespace {

constexpr int kWarpsPerBlock = 8;

template <typename Vec>
__global__ void jagged_to_padded(const Vec* __restrict__ values, const int64_t* __restrict__ offsets,
                                 Vec* __restrict__ out, int64_t rows, int64_t max_length, int64_t vecs_per_row,
                                 Vec zero) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  const int64_t sequence = row / max_length;
  const int64_t position = row % max_length;
  const int64_t begin = offsets[sequence];
  const bool present = position < offsets[sequence + 1] - begin;
  Vec* dst = out + row * vecs_per_row;
  if (present) {
    const Vec* src = values + (begin + position) * vecs_per_row;
    for (int64_t v = lane; v < vecs_per_row; v += 32) dst[v] = src[v];
  } else {
    for (int64_t v = lane; v < vecs_per_row; v += 32) dst[v] = zero;
  }
}

}  // namespace

extern "C" int kf_forward(const kf_tensor* inputs, int32_t num_inputs, kf_tensor* outputs, int32_t num_outputs,
                          void* stream) {
  if (num_inputs != 2 || num_outputs != 1) return 1;
  const kf_tensor& values = inputs[0];
  const kf_tensor& offsets = inputs[1];
  kf_tensor& out = outputs[0];
  if (values.dtype != KF_FLOAT32 || offsets.dtype != KF_INT64 || out.dtype != KF_FLOAT32 || out.ndim != 3)
    return 2;
  const int64_t rows = out.shape[0] * out.shape[1];
  const int64_t max_length = out.shape[1];
  const int64_t dim = out.shape[2];
  if (rows == 0) return 0;
  const unsigned blocks = static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  auto s = static_cast<cudaStream_t>(stream);
  const auto* off = static_cast<const int64_t*>(offsets.data);
  if (dim % 4 == 0) {
    jagged_to_padded<float4><<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const float4*>(values.data), off, static_cast<float4*>(out.data), rows, max_length, dim / 4,
        make_float4(0.f, 0.f, 0.f, 0.f));
  } else {
    jagged_to_padded<float><<<blocks, kWarpsPerBlock * 32, 0, s>>>(
        static_cast<const float*>(values.data), off, static_cast<float*>(out.data), rows, max_length, dim, 0.f);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
