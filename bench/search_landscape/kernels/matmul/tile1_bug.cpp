// landscape: matmul/tile1_bug
// Branching landscape, tiling family, first step: cache blocks of 32 x 32 x 32 with the i-k-j order inside
// each. At 128 x 128 the operands already fit in cache, so the blocks buy nothing yet and their short inner
// loops cost more than they save: slower than the plain i-k-j row loop. Register tiles are built on this.
// Bug: the k blocks start at the second, so the first 32 terms of every dot product are lost.
#include "kforge.h"

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* a = static_cast<const float*>(in[0].data);
  const float* b = static_cast<const float*>(in[1].data);
  float* c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  constexpr int64_t kBlock = 32;
  for (int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
  for (int64_t i0 = 0; i0 < m; i0 += kBlock)
    for (int64_t j0 = 0; j0 < n; j0 += kBlock)
      for (int64_t p0 = kBlock; p0 < k; p0 += kBlock) {
        const int64_t i1 = i0 + kBlock < m ? i0 + kBlock : m;
        const int64_t j1 = j0 + kBlock < n ? j0 + kBlock : n;
        const int64_t p1 = p0 + kBlock < k ? p0 + kBlock : k;
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t p = p0; p < p1; ++p) {
            const float av = a[i * k + p];
            for (int64_t j = j0; j < j1; ++j) c[i * n + j] += av * b[p * n + j];
          }
      }
  return 0;
}
