// landscape: matmul/tile2
// Branching landscape, tiling family, same kernel as L3 (no cache blocks: at 128 x 128 the operands fit in L2).
// Register tiles: 4 rows x 32 columns of C stay in registers over the whole k loop, so each row of B
// loaded is used four times; edges fall back to the row loop.
#include "kforge.h"

namespace {
constexpr int64_t kRows = 4, kCols = 32;

void edge(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int64_t i, int64_t j0,
          int64_t j1, int64_t k, int64_t n) {
  for (int64_t j = j0; j < j1; ++j) c[i * n + j] = 0.0f;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = j0; j < j1; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}
}  // namespace

extern "C" int kf_forward(const kf_tensor* in, int32_t n_in, kf_tensor* out, int32_t n_out, void*) {
  if (n_in != 2 || n_out != 1 || in[0].ndim != 2 || in[1].ndim != 2) return 1;
  const float* __restrict__ a = static_cast<const float*>(in[0].data);
  const float* __restrict__ b = static_cast<const float*>(in[1].data);
  float* __restrict__ c = static_cast<float*>(out[0].data);
  const int64_t m = in[0].shape[0], k = in[0].shape[1], n = in[1].shape[1];
  const int64_t m_tiled = m - m % kRows, n_tiled = n - n % kCols;
  for (int64_t i = 0; i < m_tiled; i += kRows)
    for (int64_t j0 = 0; j0 < n_tiled; j0 += kCols) {
      float acc[kRows][kCols] = {};
      for (int64_t p = 0; p < k; ++p) {
        const float* __restrict__ brow = b + p * n + j0;
        for (int64_t r = 0; r < kRows; ++r) {
          const float av = a[(i + r) * k + p];
          for (int64_t j = 0; j < kCols; ++j) acc[r][j] += av * brow[j];
        }
      }
      for (int64_t r = 0; r < kRows; ++r)
        for (int64_t j = 0; j < kCols; ++j) c[(i + r) * n + j0 + j] = acc[r][j];
    }
  for (int64_t i = 0; i < m; ++i) {
    if (i < m_tiled)
      edge(a, b, c, i, n_tiled, n, k, n);
    else
      edge(a, b, c, i, 0, n, k, n);
  }
  return 0;
}
