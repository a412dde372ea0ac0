#include "kforge.h"

// inputs: indices int64[N] (N varies per call), offsets int64[B+1], weight fp32[R, D]; output fp32[B, D].
// Mean pooling; an empty bag gives zeros. Every size comes from this call's tensors.
extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 3 || n_out != 1) return 2;
  const int64_t* indices = static_cast<const int64_t*>(in[0].data);
  const int64_t* offsets = static_cast<const int64_t*>(in[1].data);
  const float* weight = static_cast<const float*>(in[2].data);
  float* o = static_cast<float*>(out[0].data);
  const int64_t n = in[0].shape[0], bags = out[0].shape[0], dim = out[0].shape[1], rows = in[2].shape[0];
  if (in[1].shape[0] != bags + 1 || offsets[bags] != n) return 3;
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = offsets[b], end = offsets[b + 1];
    for (int64_t c = 0; c < dim; ++c) {
      double acc = 0;
      for (int64_t j = begin; j < end; ++j) {
        if (indices[j] < 0 || indices[j] >= rows) return 4;
        acc += weight[indices[j] * dim + c];
      }
      o[b * dim + c] = end > begin ? static_cast<float>(acc / static_cast<double>(end - begin)) : 0.f;
    }
  }
  return 0;
}
